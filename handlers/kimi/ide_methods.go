package kimi

import (
	"github.com/kast-dev/kast/server"
)

// ideEvents are the notifications the IDE projection sends.
var ideEvents = []string{"TurnBegin", "TurnEnd", "StepBegin", "StepEnd", "ContentPart", "ToolCall", "ToolResult",
	"ApprovalRequest", "StatusUpdate", "Error"}

// methods is the IDE methods table (specs/kimi-ide-api.md). Starting and
// interrupting a turn and answering an approval are cheap: they run on the
// read loop, in order.
func (k *IDE) methods() []server.Spec {
	return []server.Spec{
		server.Request("sendMessage", server.Ordered, k.sendMessage).Advertise("methods"),
		server.Request("interruptTurn", server.Ordered, k.interruptTurn).Advertise("methods"),
		// The extension has sent it both as a request and as a notification.
		server.Request("submitApproval", server.Ordered, k.submitApproval).EitherWay().Advertise("methods"),
		server.Request("ping", server.Concurrent, k.ping).Advertise("methods"),
		// kast's additions for its VS Code extension (ide_extras.go); the key
		// check and completion call the model, off the read loop.
		server.Request("newSession", server.Ordered, k.newSession).Advertise("extensions"),
		server.Request("validateApiKey", server.Concurrent, k.validateApiKey).Advertise("extensions"),
		server.Request("inlineCompletion", server.Concurrent, k.inlineCompletion).Advertise("extensions"),
	}
}

// capabilities is the family's advertisement, derived from the table.
func capabilities(table []server.Spec) map[string]any {
	names, extensions := []string{}, []string{}
	for _, m := range table {
		switch m.Capability {
		case "methods":
			names = append(names, m.Name())
		case "extensions":
			extensions = append(extensions, m.Name())
		}
	}
	return map[string]any{"protocol": "kimi-ide", "methods": names, "extensions": extensions, "events": ideEvents,
		"approvalTypes": []string{"tool_call", "file_write", "command_execute"}}
}

// Register adds the IDE methods to reg, advertised in
// capabilities.experimental.kimi on the LSP connection.
func (k *IDE) Register(reg *server.Registry) {
	table := k.methods()
	reg.Register(table)
	reg.Family("kimi", capabilities(table))
	reg.OnShutdown(k.shutdown)
}

// Profile is `kast kimi --wire-stdio`: newline-delimited JSON, no
// handshake, numeric or string ids.
func (k *IDE) Profile() server.Profile {
	return server.Profile{Name: "kast", Framing: server.FramingNDJSON}
}
