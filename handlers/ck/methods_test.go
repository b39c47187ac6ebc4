package ck

import (
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// Each ck tool is registered as ck/<tool> and advertised in
// capabilities.experimental.ck, and nothing else is.
func TestMethodsTableMatchesTools(t *testing.T) {
	reg := server.NewRegistry()
	New(host.New(host.Options{})).Register(reg)
	advertised := reg.Families()["ck"].(map[string]any)["tools"].([]string)
	var tools []string
	for _, tool := range Tools() {
		tools = append(tools, tool.Name)
		if _, ok := reg.Lookup("ck/" + tool.Name); !ok {
			t.Errorf("ck/%s is not registered", tool.Name)
		}
	}
	if !slices.Equal(advertised, tools) {
		t.Errorf("experimental.ck tools = %v, want %v", advertised, tools)
	}
	for _, name := range reg.Names() {
		if !slices.Contains(advertised, name[len("ck/"):]) {
			t.Errorf("%s is registered but not advertised", name)
		}
	}
	if len(tools) != 8 {
		t.Errorf("%d ck tools, want ck's 8: %v", len(tools), tools)
	}
}
