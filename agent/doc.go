// Package agent will hold the agent turn runner, its event model, providers,
// tools and sessions, with one projection per protocol (Kward, Kaiak, Kimi).
package agent
