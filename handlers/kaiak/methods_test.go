package kaiak_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
)

// What the family advertises is what it registers, on both entry points.
func TestCapabilitiesListTheRegisteredMethods(t *testing.T) {
	kaiaktest.Env(t, "")
	p := handlers.NewProcess(host.New(host.Options{}))
	for name, entry := range map[string]handlers.Entry{"kaiak rpc": handlers.KaiakRPC(p), "lsp": handlers.LSP(p)} {
		caps, _ := entry.Registry.Families()["kaiak"].(map[string]any)
		if caps == nil {
			t.Fatalf("%s: no kaiak family", name)
		}
		advertised := append([]string{}, caps["methods"].([]string)...)
		advertised = append(advertised, caps["v2"].(map[string]any)["methods"].([]string)...)
		var registered []string
		for _, n := range entry.Registry.Names() {
			if strings.HasPrefix(n, "kaiak/") {
				registered = append(registered, n)
			}
		}
		slices.Sort(advertised)
		if !slices.Equal(advertised, registered) {
			t.Errorf("%s: advertised %v, registered %v", name, advertised, registered)
		}
	}
}
