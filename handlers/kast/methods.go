package kast

import (
	"maps"
	"slices"
	"strings"

	"github.com/kast-dev/kast/server"
)

// methods is the Kast methods table (specs/kast-api.md): wire name → params →
// result → class → handler, with the capabilities each method gives
// ("read:X" or "mutation:X", space-separated), from which `capabilities`
// and capabilities.experimental.kast derive. Every method is also served as
// its kast/<camelCase> alias (kastAlias).
func (k *Service) methods() []server.Spec {
	return []server.Spec{
		// System (system.go).
		method("health", server.Concurrent, k.health),
		method("runtime/status", server.Concurrent, k.runtimeStatus),
		method("runtime/shutdown", server.Concurrent, k.runtimeAction("SHUTDOWN")),
		method("runtime/restart", server.Concurrent, k.runtimeAction("RESTART")),
		method("capabilities", server.Concurrent, k.capabilities),

		// Position-based analysis (raw.go, raw_hierarchy.go, raw_edits.go, raw_workspace.go).
		method("raw/resolve", server.Concurrent, k.resolve).Advertise("read:RESOLVE_SYMBOL"),
		method("raw/references", server.Concurrent, k.references).Advertise("read:FIND_REFERENCES"),
		method("raw/call-hierarchy", server.Concurrent, k.callHierarchy).Advertise("read:CALL_HIERARCHY"),
		method("raw/type-hierarchy", server.Concurrent, k.typeHierarchy).Advertise("read:TYPE_HIERARCHY"),
		method("raw/semantic-insertion-point", server.Concurrent, k.insertionPoint).Advertise("read:SEMANTIC_INSERTION_POINT"),
		method("raw/diagnostics", server.Concurrent, k.diagnostics).Advertise("read:DIAGNOSTICS"),
		method("raw/file-outline", server.Concurrent, k.fileOutline).Advertise("read:FILE_OUTLINE"),
		method("raw/workspace-symbol", server.Concurrent, k.workspaceSymbol).Advertise("read:WORKSPACE_SYMBOL_SEARCH"),
		method("raw/workspace-search", server.Concurrent, k.workspaceSearch).Advertise("read:WORKSPACE_SEARCH"),
		method("raw/workspace-files", server.Concurrent, k.workspaceFiles).Advertise("read:WORKSPACE_FILES"),
		method("raw/implementations", server.Concurrent, k.implementations).Advertise("read:IMPLEMENTATIONS"),
		method("raw/code-actions", server.Concurrent, k.codeActions).Advertise("read:CODE_ACTIONS"),
		method("raw/completions", server.Concurrent, k.completions).Advertise("read:COMPLETIONS"),
		method("raw/rename", server.Concurrent, k.rename).Advertise("mutation:RENAME"),
		method("raw/apply-edits", server.Exclusive, k.applyEdits).Advertise("mutation:APPLY_EDITS mutation:FILE_OPERATIONS"),
		method("raw/optimize-imports", server.Concurrent, k.optimizeImports).Advertise("mutation:OPTIMIZE_IMPORTS"),
		method("raw/workspace-refresh", server.Exclusive, k.refresh).Advertise("mutation:REFRESH_WORKSPACE"),

		// Name-based analysis (symbol.go, query.go; rename and write in
		// symbol_write.go).
		method("symbol/scaffold", server.Concurrent, k.symbolScaffold),
		method("symbol/discover", server.Concurrent, k.symbolDiscover),
		method("symbol/query", server.Concurrent, k.symbolQuery),
		method("symbol/resolve", server.Concurrent, k.symbolResolve),
		method("symbol/references", server.Concurrent, k.symbolReferences),
		method("symbol/callers", server.Concurrent, k.symbolCallers),
		method("symbol/rename", server.Exclusive, k.symbolRename),
		method("symbol/write-and-validate", server.Exclusive, k.symbolWrite),

		// Reference-graph metrics (metrics.go).
		method("database/metrics", server.Concurrent, k.metrics),

		// Kast's later catalog: exact subjects and paged relations
		// (exact.go), scope mutations (scope.go), queued mutations
		// (mutation.go), workspace-file continuations (continuation.go).
		method("selector/identity", server.Concurrent, k.selectorIdentity),
		method("symbol/implementations", server.Concurrent, k.symbolImplementations),
		method("symbol/hierarchy", server.Concurrent, k.symbolHierarchy),
		method("symbol/add-file", server.Exclusive, k.addFile),
		method("symbol/add-declaration", server.Exclusive, k.addDeclaration),
		method("symbol/add-implementation", server.Exclusive, k.addDeclaration),
		method("symbol/add-statement", server.Exclusive, k.addStatement),
		method("symbol/replace-declaration", server.Exclusive, k.replaceDeclaration),
		method("mutation/submit", server.Concurrent, k.mutationSubmit),
		method("mutation/status", server.Concurrent, k.mutationStatus),
		method("mutation/cancel", server.Concurrent, k.mutationCancel),
		method("raw/workspace-files-continuation", server.Concurrent, k.filesContinuation),
	}
}

// extensions are kast's own methods beside Kast's catalog (which the
// methods table matches exactly), advertised apart, in
// capabilities.experimental.kastExtensions: {"methods": {name: alias},
// "capabilities": [...]}, so that Kast's capability object stays Kast's.
func (k *Service) extensions() []server.Spec {
	return []server.Spec{
		// The whole `kast search` regex query (search.go).
		method("search/regex", server.Concurrent, k.regexSearch).Advertise("extension:REGEX_SEARCH"),
	}
}

// extensionCapabilities is the kastExtensions object of a table.
func extensionCapabilities(table []server.Spec) map[string]any {
	methods, caps := map[string]string{}, []string{}
	for _, m := range table {
		methods[m.Name()] = kastAlias(m.Name())
		for _, tag := range strings.Fields(m.Capability) {
			if name, ok := strings.CutPrefix(tag, "extension:"); ok {
				caps = append(caps, name)
			}
		}
	}
	return map[string]any{"methods": methods, "capabilities": caps}
}

// Register adds every Kast method and its kast/<camelCase> alias to reg and
// advertises the family in capabilities.experimental.kast; kast's
// extensions likewise, in experimental.kastExtensions.
func (k *Service) Register(reg *server.Registry) {
	ext := k.extensions()
	reg.Register(ext)
	for _, m := range ext {
		reg.Alias(kastAlias(m.Name()), m.Name())
	}
	reg.Family("kastExtensions", extensionCapabilities(ext))
	table := k.methods()
	reg.Register(table)
	aliases := map[string]string{}
	for _, m := range table {
		aliases[m.Name()] = kastAlias(m.Name())
		reg.Alias(kastAlias(m.Name()), m.Name())
	}
	read, mutation := advertised(table)
	reg.Family("kast", map[string]any{
		"schemaVersion": kastSchemaVersion, "backendName": kastBackendName,
		"readCapabilities": read, "mutationCapabilities": mutation,
		"positionEncoding": "utf-8", "methods": aliases,
	})
	// Kast's own LSP adapter lists the custom methods it serves, by their
	// LSP names, in experimental.kastMethods; its clients read that.
	reg.Family("kastMethods", slices.Sorted(maps.Values(aliases)))
}

// advertised collects the read and mutation capabilities of a table's rows.
func advertised(table []server.Spec) (read, mutation []string) {
	read, mutation = []string{}, []string{}
	for _, m := range table {
		for _, tag := range strings.Fields(m.Capability) {
			if name, ok := strings.CutPrefix(tag, "read:"); ok {
				read = append(read, name)
			} else if name, ok := strings.CutPrefix(tag, "mutation:"); ok {
				mutation = append(mutation, name)
			}
		}
	}
	return read, mutation
}
