package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/complete"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// completionData identifies an item's definition for completionItem/resolve.
type completionData struct {
	Path  string `json:"path"`
	Index int32  `json:"index"`
}

// Completion answers textDocument/completion.
func (l *LSP) Completion(ctx context.Context, p *protocol.CompletionParams) (protocol.CompletionResult, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[protocol.CompletionResult](&protocol.CompletionList{Items: []protocol.CompletionItem{}}, err)
	}
	d, _ := r.document(path)
	res := complete.Complete(r.snap, path, off, d.Text)
	replace := r.between(path, res.Replace.Start, res.Replace.End)
	items := make([]protocol.CompletionItem, 0, len(res.Items))
	for i, it := range res.Items {
		ci := protocol.CompletionItem{
			Label:    it.Label,
			Kind:     completionKind(it),
			SortText: protocol.NewOptional(fmt.Sprintf("%d%04d", it.Rank, i)),
			TextEdit: &protocol.TextEdit{Range: replace, NewText: it.Label},
		}
		if it.Detail != "" {
			ci.Detail = protocol.NewOptional(it.Detail)
		}
		if it.Def.Path != "" {
			ci.Data, _ = json.Marshal(completionData{it.Def.Path, it.Def.Index})
		}
		if it.Import != nil {
			at := r.between(path, it.Import.Offset, it.Import.Offset)
			ci.AdditionalTextEdits = []protocol.TextEdit{{Range: at, NewText: it.Import.Text}}
		}
		items = append(items, ci)
	}
	// Incomplete only when items were left out: otherwise a longer prefix
	// selects among these, which the client filters itself.
	return &protocol.CompletionList{IsIncomplete: res.Incomplete, Items: items}, nil
}

// CompletionResolve adds the definition's documentation to an item.
func (l *LSP) CompletionResolve(ctx context.Context, item *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	var data completionData
	if len(item.Data) == 0 || json.Unmarshal(item.Data, &data) != nil {
		return item, nil
	}
	r := l.request(ctx)
	if md := navigate.Describe(r.snap, resolve.DefID{Path: data.Path, Index: data.Index}); md != "" {
		item.Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}
	}
	return item, nil
}

func completionKind(it complete.Item) protocol.CompletionItemKind {
	if it.Keyword {
		return protocol.CompletionItemKindKeyword
	}
	switch it.Kind {
	case analysis.KindPackage, analysis.KindModule:
		return protocol.CompletionItemKindModule
	case analysis.KindClass, analysis.KindObject, analysis.KindTypeAlias:
		return protocol.CompletionItemKindClass
	case analysis.KindInterface, analysis.KindTrait:
		return protocol.CompletionItemKindInterface
	case analysis.KindEnum:
		return protocol.CompletionItemKindEnum
	case analysis.KindEnumEntry:
		return protocol.CompletionItemKindEnumMember
	case analysis.KindStruct:
		return protocol.CompletionItemKindStruct
	case analysis.KindFunction, analysis.KindLambda:
		return protocol.CompletionItemKindFunction
	case analysis.KindMethod:
		return protocol.CompletionItemKindMethod
	case analysis.KindConstructor:
		return protocol.CompletionItemKindConstructor
	case analysis.KindProperty:
		return protocol.CompletionItemKindProperty
	case analysis.KindField:
		return protocol.CompletionItemKindField
	case analysis.KindConstant:
		return protocol.CompletionItemKindConstant
	case analysis.KindTypeParameter:
		return protocol.CompletionItemKindTypeParameter
	}
	return protocol.CompletionItemKindVariable
}
