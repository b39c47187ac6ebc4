package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/tokens"
)

// Commands kast runs through workspace/executeCommand.
const (
	cmdReindex = "kast.reindex" // refresh every root's index and resolve its references now; returns {"files": n, "resolved": m}
	cmdStatus  = "kast.status"  // the roots, their index notices and whether references are stored
)

// providers sets the ServerCapabilities field a methods-table row advertises,
// by the row's capability tag (the field's JSON name, dotted for a sub-option).
var providers = map[string]func(*protocol.ServerCapabilities){
	"textDocumentSync": func(c *protocol.ServerCapabilities) {
		change := protocol.TextDocumentSyncKindIncremental
		c.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: ptr(true), Change: &change,
			Save: &protocol.SaveOptions{IncludeText: ptr(false)}}
	},
	"workspaceFolders": func(c *protocol.ServerCapabilities) {
		c.Workspace = &protocol.WorkspaceOptions{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: ptr(true), ChangeNotifications: protocol.Boolean(true)},
		}
	},
	"definitionProvider":        func(c *protocol.ServerCapabilities) { c.DefinitionProvider = protocol.Boolean(true) },
	"declarationProvider":       func(c *protocol.ServerCapabilities) { c.DeclarationProvider = protocol.Boolean(true) },
	"typeDefinitionProvider":    func(c *protocol.ServerCapabilities) { c.TypeDefinitionProvider = protocol.Boolean(true) },
	"implementationProvider":    func(c *protocol.ServerCapabilities) { c.ImplementationProvider = protocol.Boolean(true) },
	"referencesProvider":        func(c *protocol.ServerCapabilities) { c.ReferencesProvider = protocol.Boolean(true) },
	"documentHighlightProvider": func(c *protocol.ServerCapabilities) { c.DocumentHighlightProvider = protocol.Boolean(true) },
	"hoverProvider":             func(c *protocol.ServerCapabilities) { c.HoverProvider = protocol.Boolean(true) },
	"signatureHelpProvider": func(c *protocol.ServerCapabilities) {
		c.SignatureHelpProvider = &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}}
	},
	"completionProvider": func(c *protocol.ServerCapabilities) {
		if c.CompletionProvider == nil {
			c.CompletionProvider = &protocol.CompletionOptions{}
		}
		c.CompletionProvider.TriggerCharacters = []string{".", ":"}
	},
	"completionProvider.resolveProvider": func(c *protocol.ServerCapabilities) {
		if c.CompletionProvider == nil {
			c.CompletionProvider = &protocol.CompletionOptions{}
		}
		c.CompletionProvider.ResolveProvider = ptr(true)
	},
	"renameProvider": func(c *protocol.ServerCapabilities) {
		if c.RenameProvider == nil {
			c.RenameProvider = &protocol.RenameOptions{}
		}
	},
	"renameProvider.prepareProvider": func(c *protocol.ServerCapabilities) {
		c.RenameProvider = &protocol.RenameOptions{PrepareProvider: ptr(true)}
	},
	"callHierarchyProvider":  func(c *protocol.ServerCapabilities) { c.CallHierarchyProvider = protocol.Boolean(true) },
	"typeHierarchyProvider":  func(c *protocol.ServerCapabilities) { c.TypeHierarchyProvider = protocol.Boolean(true) },
	"documentSymbolProvider": func(c *protocol.ServerCapabilities) { c.DocumentSymbolProvider = protocol.Boolean(true) },
	"foldingRangeProvider":   func(c *protocol.ServerCapabilities) { c.FoldingRangeProvider = protocol.Boolean(true) },
	"selectionRangeProvider": func(c *protocol.ServerCapabilities) { c.SelectionRangeProvider = protocol.Boolean(true) },
	"semanticTokensProvider.full": func(c *protocol.ServerCapabilities) {
		semanticTokens(c).Full = protocol.Boolean(true)
	},
	"semanticTokensProvider.range": func(c *protocol.ServerCapabilities) {
		semanticTokens(c).Range = protocol.Boolean(true)
	},
	"diagnosticProvider": func(c *protocol.ServerCapabilities) {
		c.DiagnosticProvider = &protocol.DiagnosticOptions{Identifier: ptr("kast")}
	},
	"workspaceSymbolProvider": func(c *protocol.ServerCapabilities) { c.WorkspaceSymbolProvider = protocol.Boolean(true) },
	"codeActionProvider": func(c *protocol.ServerCapabilities) {
		c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindSourceOrganizeImports}}
	},
	"executeCommandProvider": func(c *protocol.ServerCapabilities) {
		c.ExecuteCommandProvider = protocol.ExecuteCommandOptions{Commands: []string{cmdReindex, cmdStatus}}
	},
}

func semanticTokens(c *protocol.ServerCapabilities) *protocol.SemanticTokensOptions {
	opts, ok := c.SemanticTokensProvider.(*protocol.SemanticTokensOptions)
	if !ok {
		opts = &protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokens.Types, TokenModifiers: tokens.Modifiers},
		}
		c.SemanticTokensProvider = opts
	}
	return opts
}

func ptr[T any](v T) *T { return &v }
