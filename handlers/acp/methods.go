package acp

import "github.com/kast-dev/kast/server"

// The capability tags of the methods table: every method the agent serves
// is advertised under "agent"; initialize's capabilities follow from which
// are registered (see capabilities).
const tagAgent = "agent"

// methods is ACP's methods table. The prompt and load run off the read
// loop: a prompt answers when its turn ends, and session/cancel must be
// read meanwhile.
func (s *Service) methods() []server.Spec {
	return []server.Spec{
		server.Request("initialize", server.Ordered, s.initialize).Advertise(tagAgent),
		server.Request("authenticate", server.Ordered, s.authenticate).Advertise(tagAgent),
		server.Request("session/new", server.Ordered, s.newSession).Advertise(tagAgent),
		server.Request("session/load", server.Concurrent, s.loadSession).Advertise(tagAgent),
		server.Request("session/resume", server.Ordered, s.resumeSession).Advertise(tagAgent),
		server.Request("session/list", server.Concurrent, s.listSessions).Advertise(tagAgent),
		server.Request("session/close", server.Ordered, s.closeSession).Advertise(tagAgent),
		server.Request("session/set_mode", server.Ordered, s.setMode).Advertise(tagAgent),
		server.Request("session/prompt", server.Concurrent, s.prompt).Advertise(tagAgent),
		server.Notification("session/cancel", server.Ordered, s.cancel).Advertise(tagAgent),
	}
}

// Register adds ACP's methods to reg.
func (s *Service) Register(reg *server.Registry) { reg.Register(s.methods()) }

// Advertised lists the methods the agent serves.
func (s *Service) Advertised() []string {
	var names []string
	for _, m := range s.methods() {
		if m.Capability == tagAgent {
			names = append(names, m.Name())
		}
	}
	return names
}

// capabilities derives initialize's agentCapabilities from the table.
func (s *Service) capabilities() map[string]any {
	has := map[string]bool{}
	for _, name := range s.Advertised() {
		has[name] = true
	}
	// additionalDirectories is a parameter of session/new, load and resume.
	sessionCaps := map[string]any{"additionalDirectories": map[string]any{}}
	for method, capName := range map[string]string{"session/list": "list", "session/resume": "resume", "session/close": "close"} {
		if has[method] {
			sessionCaps[capName] = map[string]any{}
		}
	}
	return map[string]any{
		"loadSession":         has["session/load"],
		"promptCapabilities":  map[string]any{"image": true, "audio": false, "embeddedContext": true},
		"mcpCapabilities":     map[string]any{"http": true, "sse": false},
		"sessionCapabilities": sessionCaps,
	}
}
