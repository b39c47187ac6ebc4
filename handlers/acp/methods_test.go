package acp

import (
	"slices"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Every row of the methods table is advertised and registered, and the
// session capabilities initialize reports are exactly the optional session
// methods the table has.
func TestMethodsTableMatchesCapabilities(t *testing.T) {
	s := New(agent.NewRuntime(agent.RuntimeOptions{Env: func(string) string { return "" }, LaunchDir: t.TempDir()}), Options{})
	reg := server.NewRegistry()
	s.Register(reg)
	advertised := s.Advertised()
	for _, m := range s.methods() {
		if _, ok := reg.Lookup(m.Name()); !ok {
			t.Errorf("%s is in the table but not registered", m.Name())
		}
		if !slices.Contains(advertised, m.Name()) {
			t.Errorf("%s is registered but not advertised", m.Name())
		}
	}
	caps := s.capabilities()
	if caps["loadSession"] != true {
		t.Error("session/load is registered but loadSession is not true")
	}
	sessionCaps := caps["sessionCapabilities"].(map[string]any)
	for method, capName := range map[string]string{"session/list": "list", "session/resume": "resume", "session/close": "close"} {
		_, has := sessionCaps[capName]
		if _, registered := reg.Lookup(method); has != registered {
			t.Errorf("%s registered %v, sessionCapabilities.%s %v", method, registered, capName, has)
		}
	}
}
