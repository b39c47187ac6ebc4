package kward

import (
	"context"

	"github.com/kast-dev/kast/server"
)

// methods is the Kward methods table (specs/kward-rpc.md): wire name → params
// → result → class → handler. Each row's capability names the group of
// Kward's initialize capabilities that lists it (caps.go). Methods that call
// a model, a program or the network never run on the read loop.
func (k *Service) methods() []server.Spec {
	return []server.Spec{
		// Sessions and turns (kward.go, compact.go, export.go).
		method(k, "kward/initialize", server.Ordered, func(context.Context, struct{}) (map[string]any, error) {
			return kwardInitializeResult(k.methods()), nil
		}),
		method(k, "workspace/validate", server.Concurrent, k.workspaceValidate).Advertise("workspace"),
		method(k, "workspace/info", server.Concurrent, k.workspaceInfo).Advertise("workspace"),
		method(k, "sessions/create", server.Ordered, k.sessionsCreate).Advertise("sessions"),
		method(k, "sessions/resume", server.Ordered, k.sessionsResume).Advertise("sessions"),
		method(k, "sessions/list", server.Concurrent, k.sessionsList).Advertise("sessions"),
		method(k, "sessions/rename", server.Ordered, k.sessionsRename).Advertise("sessions"),
		method(k, "sessions/clone", server.Ordered, k.sessionsClone).Advertise("sessions"),
		method(k, "sessions/forkMessages", server.Concurrent, k.sessionsForkMessages).Advertise("sessions"),
		method(k, "sessions/fork", server.Ordered, k.sessionsFork).Advertise("sessions"),
		method(k, "sessions/export", server.Concurrent, k.sessionsExport).Advertise("sessions"),
		// Closing waits (bounded) for running turns to stop: off the read loop.
		method(k, "sessions/delete", server.Concurrent, k.sessionsDelete).Advertise("sessions"),
		method(k, "sessions/close", server.Concurrent, k.sessionsClose).Advertise("sessions"),
		method(k, "sessions/transcript", server.Concurrent, k.sessionsTranscript).Advertise("sessions"),
		// Compaction calls the model.
		method(k, "sessions/compact", server.Concurrent, k.sessionsCompact).Advertise("sessions"),
		method(k, "turns/start", server.Ordered, k.turnsStart).Advertise("turns"),
		method(k, "turns/cancel", server.Ordered, k.turnsCancel).Advertise("turns"),
		method(k, "turns/status", server.Concurrent, k.turnsStatus).Advertise("turns"),
		method(k, "turns/events", server.Concurrent, k.turnsEvents).Advertise("turns"),
		method(k, "tools/list", server.Concurrent, k.toolsList).Advertise("tools"),
		method(k, "ui/answerQuestion", server.Ordered, k.answerQuestion),
		method(k, "tool/answerApproval", server.Ordered, k.answerApproval),

		// Models, runtime settings, config, auth and logging (settings.go).
		method(k, "models/list", server.Concurrent, k.modelsList).Advertise("models"),
		method(k, "models/current", server.Concurrent, k.modelsCurrent).Advertise("models"),
		method(k, "models/set", server.Ordered, k.modelsSet).Advertise("models"),
		method(k, "reasoning/set", server.Ordered, k.reasoningSet).Advertise("models"),
		method(k, "openrouter/catalog", server.Concurrent, k.openrouterCatalog).Advertise("models"),
		method(k, "runtime/state", server.Concurrent, k.runtimeState).Advertise("runtime"),
		method(k, "runtime/stats", server.Concurrent, k.runtimeStats).Advertise("runtime"),
		method(k, "runtime/updateSetting", server.Ordered, k.runtimeUpdateSetting).Advertise("runtimeSettings"),
		method(k, "runtime/reload", server.Ordered, k.runtimeReload).Advertise("runtimeSettings"),
		// config/read redacts on its own: redacted:false must return the values.
		server.Request("config/read", server.Concurrent, k.configRead).Advertise("config"),
		method(k, "config/update", server.Ordered, k.configUpdate).Advertise("config"),
		method(k, "auth/status", server.Concurrent, k.authStatus).Advertise("auth"),
		method(k, "auth/providers", server.Concurrent, k.authProviders).Advertise("auth"),
		method(k, "auth/loginWithApiKey", server.Ordered, k.authLoginWithAPIKey).Advertise("auth"),
		method(k, "auth/logoutProvider", server.Ordered, k.authLogout).Advertise("auth"),
		method(k, "auth/loginWithOAuth", server.Ordered, k.authLoginWithOAuth).Advertise("auth"),
		method(k, "auth/startOpenAILogin", server.Ordered, k.authStartOpenAILogin).Advertise("auth"),
		// The code exchange is an HTTP request.
		method(k, "auth/submitOpenAICode", server.Concurrent, k.authSubmitCode).Advertise("auth"),
		method(k, "auth/loginStatus", server.Concurrent, k.authLoginStatus).Advertise("auth"),
		method(k, "logging/stats", server.Concurrent, k.loggingStats).Advertise("logging"),

		// Memory (memory.go).
		method(k, "memory/status", server.Concurrent, k.memoryStatus).Advertise("memory"),
		method(k, "memory/enable", server.Ordered, k.memorySwitch("enabled", true)).Advertise("memory"),
		method(k, "memory/disable", server.Ordered, k.memorySwitch("enabled", false)).Advertise("memory"),
		method(k, "memory/autoSummary/enable", server.Ordered, k.memorySwitch("autoSummary", true)).Advertise("memory"),
		method(k, "memory/autoSummary/disable", server.Ordered, k.memorySwitch("autoSummary", false)).Advertise("memory"),
		method(k, "memory/list", server.Concurrent, k.memoryList).Advertise("memory"),
		method(k, "memory/add", server.Ordered, k.memoryAdd(false)).Advertise("memory"),
		method(k, "memory/addCore", server.Ordered, k.memoryAdd(true)).Advertise("memory"),
		method(k, "memory/forget", server.Ordered, k.memoryForget).Advertise("memory"),
		method(k, "memory/promote", server.Ordered, k.memoryPromote).Advertise("memory"),
		method(k, "memory/inspect", server.Concurrent, k.memoryInspect).Advertise("memory"),
		method(k, "memory/why", server.Concurrent, k.memoryWhy).Advertise("memory"),
		method(k, "memory/summarize", server.Concurrent, k.memorySummarize).Advertise("memory"),

		// Slash commands, prompts and startup resources (commands.go).
		method(k, "commands/list", server.Concurrent, k.commandsList).Advertise("commands"),
		// Plugins run programs.
		method(k, "commands/run", server.Concurrent, k.commandsRun).Advertise("commands"),
		method(k, "resources/startup", server.Concurrent, k.resourcesStartup),
		method(k, "prompts/list", server.Concurrent, k.promptsList).Advertise("prompts"),
		method(k, "prompts/expand", server.Concurrent, k.promptsExpand).Advertise("prompts"),
	}
}

// Register adds the Kward methods to reg and advertises the family's
// initialize result in capabilities.experimental.kward.
func (k *Service) Register(reg *server.Registry) {
	table := k.methods()
	reg.Register(table)
	reg.Family("kward", kwardInitializeResult(table))
	reg.OnShutdown(k.closeFollowed)
}

// Profile is `kast kward rpc`: Content-Length framing, no LSP lifecycle;
// initialize answers Kward's handshake (kwardHandshake), and shutdown
// closes the connection's sessions, replies {ok: true} and then ends the
// connection, as Kward does. On the LSP connection both names belong to
// LSP. Call after Register.
func (k *Service) Profile(reg *server.Registry) server.Profile {
	table := k.methods()
	reg.Register([]server.Spec{
		method(k, "initialize", server.Ordered, func(context.Context, struct{}) (map[string]any, error) {
			return kwardHandshake(table), nil
		}),
		server.Request("shutdown", server.Ordered, k.shutdown),
	})
	return server.Profile{Framing: server.FramingHeader}
}

// methodsOf lists the table's methods advertised in a capability group.
func methodsOf(table []server.Spec, group string) []string {
	names := []string{}
	for _, m := range table {
		if m.Capability == group {
			names = append(names, m.Name())
		}
	}
	return names
}
