package ck

import (
	"context"
	"encoding/json"

	"github.com/kast-dev/kast/server"
)

// methods is the ck methods table: one `ck/<tool>` request per ck tool
// (semantic_search, lexical_search, regex_search, hybrid_search,
// index_status, reindex, health_check; see tools.go), each
// answering the tool's JSON object. reindex rewrites the index: it runs
// alone.
func (c *Search) methods() []server.Spec {
	var table []server.Spec
	for _, t := range Tools() {
		name := t.Name
		class := server.Concurrent
		if name == "reindex" {
			class = server.Exclusive
		}
		table = append(table, server.Request("ck/"+name, class, func(ctx context.Context, args json.RawMessage) (map[string]any, error) {
			return c.call(ctx, name, args)
		}).Advertise(name))
	}
	return table
}

// Register adds the ck methods to reg and advertises them in
// capabilities.experimental.ck: {"tools": [...]} with each tool's name.
func (c *Search) Register(reg *server.Registry) {
	table := c.methods()
	reg.Register(table)
	reg.Family("ck", Capabilities(table))
}

// Capabilities is the ck capability object derived from a methods table.
func Capabilities(table []server.Spec) map[string]any {
	tools := []string{}
	for _, m := range table {
		if m.Capability != "" {
			tools = append(tools, m.Capability)
		}
	}
	return map[string]any{"tools": tools}
}
