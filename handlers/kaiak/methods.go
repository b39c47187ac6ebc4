package kaiak

import (
	"time"

	"github.com/kast-dev/kast/server"
)

// methods is the Kaiak methods table: the v1 contract, then the v2 names.
func (s *Service) methods() []server.Spec {
	return []server.Spec{
		// Creating a session writes its file: quick, in wire order.
		server.Request("kaiak/session/create", server.Ordered, s.sessionCreate).Advertise("v1"),
		// Terminating waits (bounded) for the session's requests to end.
		server.Request("kaiak/session/terminate", server.Concurrent, s.sessionTerminate).Advertise("v1"),
		server.Request("kaiak/session/status", server.Concurrent, s.sessionStatus).Advertise("v1"),
		// Accepting a fix request is quick; its work streams after the reply.
		server.Request("kaiak/fix/generate", server.Ordered, s.fixGenerate).Advertise("v1"),
		server.Request("kaiak/fix/cancel", server.Ordered, s.fixCancel).Advertise("v1"),
		// An approval waits for its change to be applied, briefly.
		server.Request("kaiak/interaction/respond", server.Concurrent, s.interactionRespond).Advertise("v1"),

		// v2 (v2.go). generate_fix answers once its work is done: it leaves
		// the read loop itself.
		server.Request("kaiak/generate_fix", server.Ordered, s.generateFix).Advertise("v2"),
		server.Request("kaiak/delete_session", server.Concurrent, s.deleteSession).Advertise("v2"),
		server.Request("kaiak/client/user_message", server.Concurrent, s.userMessage).Advertise("v2"),
	}
}

// notifications are the stream notifications of each era.
var (
	v1Notifications = []string{"kaiak/stream/progress", "kaiak/stream/ai_response", "kaiak/stream/thinking", "kaiak/stream/tool_call",
		"kaiak/stream/user_interaction", "kaiak/stream/file_modification", "kaiak/stream/error", "kaiak/stream/system"}
	v2Notification = "kaiak/generate_fix/data"
)

// capabilities is what the LSP connection advertises in
// capabilities.experimental.kaiak and `kast kaiak rpc` answers to initialize.
func (s *Service) capabilities(table []server.Spec) map[string]any {
	methods := func(era string) []string {
		names := []string{}
		for _, m := range table {
			if m.Capability == era {
				names = append(names, m.Name())
			}
		}
		return names
	}
	return map[string]any{
		"protocol": "kaiak", "version": "v1", "methods": methods("v1"), "notifications": v1Notifications,
		"v2": map[string]any{"methods": methods("v2"), "notification": v2Notification,
			"executeCommand": []string{"kaiak/generate_fix", "kaiak/delete_session", "kaiak/client/user_message"}},
		"interactions": map[string]any{"types": []string{"approval", "choice", "input", "confirmation"},
			"defaultTimeout": int(s.opts.InteractionTimeout / time.Second), "onTimeout": "deny"},
		"proposals": map[string]any{"changeTypes": []string{"edit", "create", "delete", "rename"}, "hash": "sha256",
			"apply": "atomic-after-hash-check", "silentWrites": false},
		"limits": map[string]any{"requestBytes": MaxRequestBytes, "incidents": MaxIncidents, "fileBytes": MaxFileBytes,
			"streamMessageBytes": MaxStreamMessageBytes, "concurrentFixRequestsPerSession": MaxConcurrentRequests,
			"statusRequestsPerMinutePerSession": MaxStatusPerMinute},
	}
}
