// Package agent is kast's agent engine: the turn runner and its event model,
// the session manager whose updates protocol projections subscribe to, the
// conversation messages, configuration and the JSONL session store. A
// Runtime, built once per process, owns the manager and the state every
// projection shares: secrets, memory, telemetry, logins and the model
// catalog.
// Providers (agent/provider) and tools (agent/tools) plug in through the
// Provider and Toolset interfaces. A session may make every file change a
// proposal that a person approves before it happens (proposal.go,
// SessionConfig.Propose). Nothing here knows a wire protocol: each
// protocol (Kward, Kaiak, Kimi) projects Events into its own notifications.
package agent
