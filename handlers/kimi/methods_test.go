package kimi_test

import (
	"slices"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
)

// Every advertised method is registered and every registered method is
// advertised, on both wires.
func TestMethodsAdvertisedAreRegistered(t *testing.T) {
	testEnv(t, "")
	rt := agent.NewRuntime(agent.RuntimeOptions{LaunchDir: t.TempDir()})
	for name, reg := range map[string]func(*server.Registry) []string{
		"ide": func(reg *server.Registry) []string {
			kimi.NewIDE(rt, kimi.IDEOptions{}).Register(reg)
			caps := reg.Families()["kimi"].(map[string]any)
			return append(caps["methods"].([]string), caps["extensions"].([]string)...)
		},
		"wire": func(reg *server.Registry) []string {
			w := kimi.NewWire(rt, kimi.WireOptions{})
			w.Register(reg)
			return w.Advertised()
		},
	} {
		r := server.NewRegistry()
		advertised := reg(r)
		registered := r.Names()
		slices.Sort(advertised)
		if !slices.Equal(advertised, registered) {
			t.Errorf("%s: advertised %v, registered %v", name, advertised, registered)
		}
	}
}
