package handlers

import "github.com/kast-dev/kast/server"

// NewRegistry returns the registry of every custom method kast serves. Each
// protocol family registers itself here and advertises its capabilities.
func NewRegistry() *server.Registry {
	reg := server.NewRegistry()
	registerKward(reg)
	registerKast(reg)
	registerCK(reg, processSearch)
	return reg
}
