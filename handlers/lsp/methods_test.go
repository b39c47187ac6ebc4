package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// Every row of the methods table is a real client→server LSP method, every
// ServerCapabilities field kast advertises comes from a registered row, and
// every row that has a provider advertises it.
func TestMethodsTableMatchesCapabilities(t *testing.T) {
	l := New(host.New(host.Options{}))
	standard := map[string]bool{}
	for _, m := range protocol.Methods {
		if m.Direction != protocol.DirectionServerToClient {
			standard[m.Method] = true
		}
	}
	registered := map[string]bool{} // capability field → a row advertises it
	for _, m := range l.methods() {
		if !standard[m.Name()] {
			t.Errorf("%s is not a client-to-server LSP method", m.Name())
		}
		if m.Capability == "" {
			continue
		}
		if providers[m.Capability] == nil {
			t.Errorf("%s advertises %q, which sets no capability", m.Name(), m.Capability)
		}
		registered[strings.Split(m.Capability, ".")[0]] = true
	}
	for tag := range providers {
		if !registered[strings.Split(tag, ".")[0]] {
			t.Errorf("capability %q is set by no registered method", tag)
		}
	}
	raw, err := json.Marshal(l.capabilities())
	if err != nil {
		t.Fatal(err)
	}
	var advertised map[string]json.RawMessage
	if err := json.Unmarshal(raw, &advertised); err != nil {
		t.Fatal(err)
	}
	field := func(name string) string {
		if name == "workspaceFolders" {
			return "workspace"
		}
		return name
	}
	for name := range registered {
		if _, ok := advertised[field(name)]; !ok {
			t.Errorf("a registered method advertises %s, but initialize does not carry it", name)
		}
	}
	for name := range advertised {
		if name != "workspace" && !registered[name] {
			t.Errorf("initialize advertises %s, which no registered method serves", name)
		}
	}

	// Registering the table registers each row under its wire name.
	reg := server.NewRegistry()
	l.Register(reg)
	for _, name := range []string{"textDocument/definition", "textDocument/didChange", "workspace/executeCommand"} {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
}
