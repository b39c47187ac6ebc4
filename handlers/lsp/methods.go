package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/server"
)

// methods is the standard LSP methods table: wire name → params → result →
// class → handler, with the ServerCapabilities field each one advertises
// (see providers). initialize and shutdown belong to the profile (Profile).
func (l *LSP) methods() []server.Spec {
	return []server.Spec{
		// Document sync and workspace notifications: in wire order.
		server.Notification("initialized", server.Ordered, l.Initialized),
		server.Notification("textDocument/didOpen", server.Ordered, l.DidOpen).Advertise("textDocumentSync"),
		server.Notification("textDocument/didChange", server.Ordered, l.DidChange).Advertise("textDocumentSync"),
		server.Notification("textDocument/didClose", server.Ordered, l.DidClose).Advertise("textDocumentSync"),
		server.Notification("textDocument/didSave", server.Ordered, l.DidSave).Advertise("textDocumentSync"),
		server.Notification("workspace/didChangeWatchedFiles", server.Ordered, l.DidChangeWatchedFiles),
		server.Notification("workspace/didChangeWorkspaceFolders", server.Ordered, l.DidChangeWorkspaceFolders).Advertise("workspaceFolders"),

		// Navigation (navigate.go).
		server.Request("textDocument/definition", server.Concurrent, l.Definition).Advertise("definitionProvider"),
		server.Request("textDocument/declaration", server.Concurrent, l.Declaration).Advertise("declarationProvider"),
		server.Request("textDocument/typeDefinition", server.Concurrent, l.TypeDefinition).Advertise("typeDefinitionProvider"),
		server.Request("textDocument/implementation", server.Concurrent, l.Implementation).Advertise("implementationProvider"),
		server.Request("textDocument/references", server.Concurrent, l.References).Advertise("referencesProvider"),
		server.Request("textDocument/documentHighlight", server.Concurrent, l.DocumentHighlight).Advertise("documentHighlightProvider"),
		server.Request("textDocument/hover", server.Concurrent, l.Hover).Advertise("hoverProvider"),
		server.Request("textDocument/signatureHelp", server.Concurrent, l.SignatureHelp).Advertise("signatureHelpProvider"),

		// Completion (complete.go).
		server.Request("textDocument/completion", server.Concurrent, l.Completion).Advertise("completionProvider"),
		server.Request("completionItem/resolve", server.Concurrent, l.CompletionResolve).Advertise("completionProvider.resolveProvider"),

		// Rename (rename.go).
		server.Request("textDocument/prepareRename", server.Concurrent, l.PrepareRename).Advertise("renameProvider.prepareProvider"),
		server.Request("textDocument/rename", server.Concurrent, l.Rename).Advertise("renameProvider"),

		// Hierarchies (hierarchy.go).
		server.Request("textDocument/prepareCallHierarchy", server.Concurrent, l.PrepareCallHierarchy).Advertise("callHierarchyProvider"),
		server.Request("callHierarchy/incomingCalls", server.Concurrent, l.IncomingCalls).Advertise("callHierarchyProvider"),
		server.Request("callHierarchy/outgoingCalls", server.Concurrent, l.OutgoingCalls).Advertise("callHierarchyProvider"),
		server.Request("textDocument/prepareTypeHierarchy", server.Concurrent, l.PrepareTypeHierarchy).Advertise("typeHierarchyProvider"),
		server.Request("typeHierarchy/supertypes", server.Concurrent, l.Supertypes).Advertise("typeHierarchyProvider"),
		server.Request("typeHierarchy/subtypes", server.Concurrent, l.Subtypes).Advertise("typeHierarchyProvider"),

		// Document structure (structure.go).
		server.Request("textDocument/documentSymbol", server.Concurrent, l.DocumentSymbol).Advertise("documentSymbolProvider"),
		server.Request("textDocument/foldingRange", server.Concurrent, l.FoldingRanges).Advertise("foldingRangeProvider"),
		server.Request("textDocument/selectionRange", server.Concurrent, l.SelectionRange).Advertise("selectionRangeProvider"),
		server.Request("textDocument/semanticTokens/full", server.Concurrent, l.SemanticTokensFull).Advertise("semanticTokensProvider.full"),
		server.Request("textDocument/semanticTokens/range", server.Concurrent, l.SemanticTokensRange).Advertise("semanticTokensProvider.range"),
		server.Request("textDocument/diagnostic", server.Concurrent, l.Diagnostic).Advertise("diagnosticProvider"),

		// Workspace (workspace.go).
		server.Request("workspace/symbol", server.Concurrent, l.Symbols).Advertise("workspaceSymbolProvider"),
		server.Request("textDocument/codeAction", server.Concurrent, l.CodeAction).Advertise("codeActionProvider"),
		server.Request("workspace/executeCommand", server.Concurrent, l.ExecuteCommand).Advertise("executeCommandProvider"),
	}
}

// Register adds the standard LSP methods to reg.
func (l *LSP) Register(reg *server.Registry) { reg.Register(l.methods()) }

// Profile is the `kast lsp` entry point: the LSP lifecycle, framing detected
// from the first byte, and LSP's own initialize and shutdown.
func (l *LSP) Profile() server.Profile {
	return server.Profile{Lifecycle: true, Initialize: l.Initialize, Shutdown: l.Shutdown, State: newOpenDocuments}
}

// capabilities is what the table advertises: each row's tag sets its field.
func (l *LSP) capabilities() protocol.ServerCapabilities {
	var caps protocol.ServerCapabilities
	for _, m := range l.methods() {
		if set := providers[m.Capability]; set != nil {
			set(&caps)
		}
	}
	return caps
}
