package kward

import (
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// mentioned collects every method name Kward's initialize result names: the
// values under "method", "methods", "runMethod" and "answerMethod" keys.
func mentioned(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for key, x := range v {
			switch key {
			case "method", "runMethod", "answerMethod":
				if s, ok := x.(string); ok {
					into[s] = true
				}
			case "methods":
				if list, ok := x.([]string); ok {
					for _, s := range list {
						into[s] = true
					}
				}
			}
			mentioned(x, into)
		}
	case []any:
		for _, x := range v {
			mentioned(x, into)
		}
	}
}

// Every method Kward's capabilities name is registered, and every
// registered method is named there, but for the handshake itself.
func TestMethodsTableMatchesCapabilities(t *testing.T) {
	k := New(agent.NewRuntime(agent.RuntimeOptions{}))
	table := k.methods()
	names := map[string]bool{}
	for _, m := range table {
		names[m.Name()] = true
	}
	named := map[string]bool{}
	mentioned(kwardInitializeResult(table), named)
	for name := range named {
		if strings.Contains(name, "/") && !names[name] {
			t.Errorf("the capabilities name %s, which is not registered", name)
		}
	}
	var unnamed []string
	for name := range names {
		if !named[name] && name != "kward/initialize" {
			unnamed = append(unnamed, name)
		}
	}
	slices.Sort(unnamed)
	if len(unnamed) > 0 {
		t.Errorf("registered but not advertised: %v", unnamed)
	}
}
