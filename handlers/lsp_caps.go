package handlers

import (
	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/tokens"
)

// Commands kast runs through workspace/executeCommand.
const (
	cmdReindex = "kast.reindex" // refresh every root's index and resolve its references now; returns {"files": n, "resolved": m}
	cmdStatus  = "kast.status"  // the roots, their index notices and whether references are stored
)

// capabilities lists every feature the standard handlers serve.
func capabilities() protocol.ServerCapabilities {
	change := protocol.TextDocumentSyncKindIncremental
	openClose, save := true, protocol.SaveOptions{IncludeText: ptr(false)}
	yes := protocol.Boolean(true)
	return protocol.ServerCapabilities{
		TextDocumentSync:          &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change, Save: &save},
		DefinitionProvider:        yes,
		DeclarationProvider:       yes,
		TypeDefinitionProvider:    yes,
		ImplementationProvider:    yes,
		ReferencesProvider:        yes,
		DocumentHighlightProvider: yes,
		HoverProvider:             yes,
		SignatureHelpProvider:     &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}},
		CompletionProvider: &protocol.CompletionOptions{
			TriggerCharacters: []string{".", ":"},
			ResolveProvider:   ptr(true),
		},
		RenameProvider:          &protocol.RenameOptions{PrepareProvider: ptr(true)},
		CallHierarchyProvider:   yes,
		TypeHierarchyProvider:   yes,
		DocumentSymbolProvider:  yes,
		FoldingRangeProvider:    yes,
		SelectionRangeProvider:  yes,
		WorkspaceSymbolProvider: yes,
		SemanticTokensProvider: &protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokens.Types, TokenModifiers: tokens.Modifiers},
			Range:  yes,
			Full:   yes,
		},
		CodeActionProvider:     &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindSourceOrganizeImports}},
		DiagnosticProvider:     &protocol.DiagnosticOptions{Identifier: ptr("kast")},
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: []string{cmdReindex, cmdStatus}},
		Workspace: &protocol.WorkspaceOptions{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: ptr(true), ChangeNotifications: yes},
		},
	}
}
