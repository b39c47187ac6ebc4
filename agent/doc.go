// Package agent is kast's agent engine: the turn runner and its event model,
// the session manager whose updates protocol projections subscribe to, the
// conversation messages, configuration and the JSONL session store.
// Providers (agent/provider) and tools (agent/tools) plug in through the
// Provider and Toolset interfaces. Nothing here knows a wire protocol: each
// protocol (Kward, Kaiak, Kimi) projects Events into its own notifications.
package agent
