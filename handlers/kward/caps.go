package kward

import (
	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// kwardProtocolVersion is the Kward RPC protocol version kast speaks.
const kwardProtocolVersion = 1

// unsupported is a capability kast does not offer yet, with the reason.
func unsupported(reason string) map[string]any {
	return map[string]any{"supported": false, "reason": reason}
}

// kwardHandshake is what `kast kward rpc` answers to initialize: Kward's
// clients check serverName "kward" and experimental true (the spec's
// identity), so the Kward profile says that; serverInfo says which server it
// really is.
func kwardHandshake(table []server.Spec) map[string]any {
	res := kwardInitializeResult(table)
	res["serverName"], res["experimental"] = "kward", true
	return res
}

// kwardInitializeResult is Kward's initialize result as the LSP connection
// advertises it in capabilities.experimental.kward and answers to
// kward/initialize, where kast names itself.
func kwardInitializeResult(table []server.Spec) map[string]any {
	methods := func(group string) []string { return methodsOf(table, group) }
	const notYet = "notImplementedYet"
	res := map[string]any{
		"protocolVersion": kwardProtocolVersion,
		"serverName":      "kast",
		"experimental":    false,
		"serverInfo":      map[string]any{"name": "kast", "protocol": "kward-rpc"},
		"capabilities": map[string]any{
			"framing": "content-length",
			"transcript": map[string]any{
				"format": "kward-transcript-v1", "messagesNormalized": true, "supportsImages": true,
				"supportsToolCalls": true, "supportsToolResults": true, "supportsCompactionSummaries": true,
				"supportsReasoningRestore": true,
			},
			"sessions": map[string]any{
				"mode": "explicit", "persistence": "jsonl", "methods": methods("sessions"),
				"startupResume": unsupported(notYet),
				// Resume opens kast's own session files only, by id or by the
				// path a listing reported; an open session comes back as is.
				"resume": map[string]any{"supported": true, "method": "sessions/resume", "params": []string{"persistentId", "path"},
					"pathScope": "sessionsFolder", "openSession": "returnsLiveSession"},
				"list":   map[string]any{"supported": true, "source": "rpc", "ancestry": true, "treeFields": true},
				"active": unsupported(notYet),
				"fork": map[string]any{"supported": true, "methods": []string{"sessions/forkMessages", "sessions/fork"},
					"entryIdFormat": "entry-id", "selectedMessage": "excludedFromForkComposerTextReturned"},
				"compact": map[string]any{"supported": true, "method": "sessions/compact", "notification": "session/event",
					"events": []string{"compactionStart", "compactionEnd"}, "automatic": true, "retryOnContextOverflow": true},
				"import":    unsupported("notPlanned"),
				"tree":      unsupported(notYet),
				"updates":   map[string]any{"supported": false, "notification": "session/updated", "reason": notYet},
				"worktrees": unsupported("interactiveTuiOnly"),
			},
			"turns": map[string]any{
				"mode": "async", "perSessionConcurrency": 1, "methods": methods("turns"),
				// Steering is the engine's, so every provider has it: input
				// joins the running turn between model steps.
				"busyInput": map[string]any{"steer": "native", "followUp": "queue", "defaultWhenIdle": "newTurn", "defaultWhenBusy": "steer"},
				"cancellation": map[string]any{"behavior": "best-effort", "queuedTurns": "cancel-before-run",
					"runningTurns": "stop-emitting-events-when-possible"},
				"eventReplay": map[string]any{"behavior": "recent-in-memory", "persisted": false, "limit": agent.ReplayLimit},
				"options": map[string]any{"supported": true, "method": "turns/start", "fields": []string{"approvalMode"},
					"perTurnModel": false, "perTurnReasoning": false, "perTurnToolScope": false},
				"list":    unsupported(notYet),
				"context": unsupported(notYet),
			},
			"events": map[string]any{
				"notification": "turn/event", "assistantText": "assistantDelta",
				"reasoning":  map[string]any{"start": false, "delta": true, "boundary": false, "end": false},
				"modelRetry": map[string]any{"supported": true, "event": "modelRetry"},
				"steering":   map[string]any{"supported": true, "event": "turnSteered", "mode": "native"},
				"tools": map[string]any{"call": true, "update": false, "result": true, "normalizedMetadata": true, "diffs": true,
					"firstChangedLine": true, "changedFiles": true, "workspaceGuardrails": true, "focusedContext": false, "contextBudgetStats": false},
				"errors": true, "sessionUpdates": false,
			},
			"attachments": map[string]any{"input": map[string]any{"supported": true, "method": "turns/start", "encoding": "base64",
				"mimeTypes": kwardImageTypes, "maxBytes": maxAttachmentBytes}},
			"models": map[string]any{"supported": true,
				"methods":      methods("models"),
				"fields":       []string{"provider", "id", "name", "reasoning", "reasoningEffort", "contextWindow"},
				"scopedModels": false, "refresh": unsupported(notYet),
				"catalog": map[string]any{"supported": true, "method": "openrouter/catalog", "cached": true}},
			"runtime": map[string]any{"supported": true, "methods": methods("runtime"), "state": map[string]any{"supported": true},
				"stats": map[string]any{"messageCounts": true, "tokens": true, "cost": false, "contextUsage": true, "contextUsageEstimated": true}},
			"config": map[string]any{"supported": true, "methods": methods("config"), "redactedByDefault": true},
			"runtimeSettings": map[string]any{"supported": true, "methods": methods("runtimeSettings"),
				"settings": []string{"defaultModel", "defaultThinkingLevel"}},
			"auth": map[string]any{"supported": true, "providerFormat": "kward-auth-v2", "methods": methods("auth"),
				"notification": "auth/loginFinished", "authenticationMethods": []string{"api_key", "oauth"},
				"oauthProviders": []string{"openai"}, "apiKeyProviders": apiKeyProviders,
				"unsupportedOAuthProviders": map[string]any{"anthropic": notYet, "openrouter": "apiKeyOnly"},
				"privateCredentialStorage":  true, "sanitizedStatus": true, "logout": true},
			"memory": map[string]any{"supported": true, "optIn": true, "defaultEnabled": false, "autoSummaryDefaultEnabled": false,
				"promptInjection": "interactive", "storage": map[string]any{"core": "json", "soft": "jsonl", "events": "jsonl"},
				"methods": methods("memory")},
			"commands": map[string]any{"supported": true, "methods": methods("commands"), "method": "commands/list",
				"runMethod": "commands/run", "sources": []string{"prompt", "skill", "plugin"}, "executableSources": []string{"plugin"}},
			"startupResources":  map[string]any{"supported": true, "method": "resources/startup"},
			"prompts":           map[string]any{"supported": true, "methods": methods("prompts"), "slashExpansion": true},
			"starterPack":       unsupported("notPlanned"),
			"shell":             unsupported("notPlanned"),
			"scratchpad":        unsupported("notPlanned"),
			"pluginChats":       unsupported("notPlanned"),
			"transports":        unsupported("notPlanned"),
			"lifecycleHooks":    unsupported(notYet),
			"skillCapture":      unsupported(notYet),
			"projectSkillTrust": unsupported(notYet),
			"mcp":               unsupported(notYet),
			"logging": map[string]any{"supported": true, "defaultEnabled": false, "methods": methods("logging"),
				"config": "logging", "env": "KAST_LOGGING", "format": "jsonl", "categories": agent.LogCategories,
				"rotation": map[string]any{"maxBytes": 10 << 20, "retention": "manual"}, "content": "redacted-metadata-only"},
			"extensionUi": map[string]any{
				"question": map[string]any{"supported": true, "notification": "ui/question", "method": "ui/answerQuestion",
					"maxQuestions": 4, "multiSelect": false, "preview": false},
				"select": false, "confirm": false, "input": false, "editor": false, "widgets": false, "custom": false, "terminalInput": false,
				"footer": unsupported(notYet),
			},
			"composer": map[string]any{"sessionDiff": unsupported("perToolDiffsOnly"), "copy": unsupported("clientOwnsClipboard")},
			"security": map[string]any{"workspaceMutationGuard": "workspaceConfinedFileTools", "toolApproval": map[string]any{"supported": true, "defaultMode": "none",
				"modes": []string{"none", "ask"}, "requestNotification": "tool/approvalRequested", "answerMethod": "tool/answerApproval"},
				"canRunShell": true, "canWriteFiles": true, "sandbox": unsupported(notYet)},
			"export":    map[string]any{"supported": true, "formats": []string{"markdown", "html"}, "defaultFormat": "markdown"},
			"tools":     map[string]any{"supported": true, "methods": methods("tools"), "method": "tools/list", "eventMetadata": true},
			"workspace": map[string]any{"supported": true, "methods": methods("workspace")},
			"stability": map[string]any{"protocol": "stable", "compatibility": "additive-fields-unless-protocol-version-changes",
				"experimentalCapabilities": []string{}},
		},
	}
	addLegacyCapabilities(res["capabilities"].(map[string]any))
	return res
}

// addLegacyCapabilities adds the flat fields older Kward clients read
// (specs/kward-rpc.md: "legacy compatibility fields still present"), which
// repeat what the detailed groups say.
func addLegacyCapabilities(caps map[string]any) {
	turns := caps["turns"].(map[string]any)
	question := caps["extensionUi"].(map[string]any)["question"].(map[string]any)
	caps["asyncTurns"] = true
	caps["turnCancellation"] = "best-effort"
	caps["turnEventReplay"] = true
	caps["uiQuestions"] = true
	caps["authLogin"] = true
	caps["configUpdate"] = true
	caps["session"] = map[string]any{"mode": "explicit", "persistence": "jsonl"}
	caps["cancellation"] = turns["cancellation"]
	caps["eventReplay"] = turns["eventReplay"]
	caps["uiQuestion"] = map[string]any{"supported": true, "method": question["method"], "notification": question["notification"],
		"maxQuestions": question["maxQuestions"], "multiSelect": false}
	// Skills are served as skill:<name> slash commands, not a read_skill tool.
	caps["skills"] = map[string]any{"supported": true, "tool": nil, "commandPrefix": "skill:", "method": "commands/list"}
}
