package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
)

// Hierarchy items are found again by their selection range, the
// definition's name, which resolves back to the definition. An incoming
// call whose sites may bind to another overload carries data
// {"ambiguous": true}, as references mark such uses.

func (r *request) item(s navigate.Symbol) protocol.CallHierarchyItem {
	it := protocol.CallHierarchyItem{
		Name: s.Name, Kind: symbolKind(s.Kind), URI: uri.File(s.Def.Path),
		Range: r.rng(s.Def.Path, s.FullSpan), SelectionRange: r.rng(s.Def.Path, s.NameSpan),
	}
	if s.Detail != "" {
		it.Detail = ptr(s.Detail)
	}
	return it
}

// target resolves a hierarchy item back to its definition.
func (r *request) target(u uri.URI, rng protocol.Range) (navigate.Symbol, bool) {
	path, off, err := r.at(u, rng.Start)
	if err != nil {
		return navigate.Symbol{}, false
	}
	return navigate.At(r.snap, path, off)
}

// PrepareCallHierarchy answers textDocument/prepareCallHierarchy.
func (l *LSP) PrepareCallHierarchy(ctx context.Context, p *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[[]protocol.CallHierarchyItem](nil, err)
	}
	s, ok := navigate.At(r.snap, path, off)
	if !ok || !navigate.IsCallable(s.Kind) {
		return nil, nil
	}
	return []protocol.CallHierarchyItem{r.item(s)}, nil
}

// IncomingCalls answers callHierarchy/incomingCalls.
func (l *LSP) IncomingCalls(ctx context.Context, p *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	r, err := l.requestWhole(ctx)
	if err != nil {
		return nil, err
	}
	s, ok := r.target(p.Item.URI, p.Item.SelectionRange)
	if !ok {
		return []protocol.CallHierarchyIncomingCall{}, nil
	}
	out := []protocol.CallHierarchyIncomingCall{}
	for _, c := range navigate.Callers(r.snap, s.Def) {
		from := r.item(c.Symbol)
		if slices.ContainsFunc(c.Sites, func(l navigate.Loc) bool { return l.Ambiguous }) {
			from.Data = protocol.LSPAny(`{"ambiguous":true}`)
		}
		out = append(out, protocol.CallHierarchyIncomingCall{From: from, FromRanges: r.ranges(c.Sites)})
	}
	return out, nil
}

// OutgoingCalls answers callHierarchy/outgoingCalls.
func (l *LSP) OutgoingCalls(ctx context.Context, p *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	r := l.request(ctx)
	s, ok := r.target(p.Item.URI, p.Item.SelectionRange)
	if !ok {
		return []protocol.CallHierarchyOutgoingCall{}, nil
	}
	out := []protocol.CallHierarchyOutgoingCall{}
	for _, c := range navigate.Callees(r.snap, s.Def) {
		out = append(out, protocol.CallHierarchyOutgoingCall{To: r.item(c.Symbol), FromRanges: r.ranges(c.Sites)})
	}
	return out, nil
}

func (r *request) ranges(locs []navigate.Loc) []protocol.Range {
	out := make([]protocol.Range, len(locs))
	for i, l := range locs {
		out[i] = r.rng(l.Path, l.Span)
	}
	return out
}

func (r *request) typeItems(syms []navigate.Symbol) []protocol.TypeHierarchyItem {
	out := []protocol.TypeHierarchyItem{}
	for _, s := range syms {
		it := r.item(s)
		out = append(out, protocol.TypeHierarchyItem{Name: it.Name, Kind: it.Kind, Detail: it.Detail, URI: it.URI, Range: it.Range, SelectionRange: it.SelectionRange})
	}
	return out
}

// PrepareTypeHierarchy answers textDocument/prepareTypeHierarchy.
func (l *LSP) PrepareTypeHierarchy(ctx context.Context, p *protocol.TypeHierarchyPrepareParams) ([]protocol.TypeHierarchyItem, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[[]protocol.TypeHierarchyItem](nil, err)
	}
	s, ok := navigate.At(r.snap, path, off)
	if !ok || !s.Kind.IsType() {
		return nil, nil
	}
	return r.typeItems([]navigate.Symbol{s}), nil
}

// Supertypes answers typeHierarchy/supertypes.
func (l *LSP) Supertypes(ctx context.Context, p *protocol.TypeHierarchySupertypesParams) ([]protocol.TypeHierarchyItem, error) {
	r := l.request(ctx)
	s, ok := r.target(p.Item.URI, p.Item.SelectionRange)
	if !ok {
		return []protocol.TypeHierarchyItem{}, nil
	}
	return r.typeItems(navigate.Supertypes(r.snap, s.Def)), nil
}

// Subtypes answers typeHierarchy/subtypes.
func (l *LSP) Subtypes(ctx context.Context, p *protocol.TypeHierarchySubtypesParams) ([]protocol.TypeHierarchyItem, error) {
	r, err := l.requestWhole(ctx)
	if err != nil {
		return nil, err
	}
	s, ok := r.target(p.Item.URI, p.Item.SelectionRange)
	if !ok {
		return []protocol.TypeHierarchyItem{}, nil
	}
	return r.typeItems(navigate.Subtypes(r.snap, s.Def)), nil
}

func symbolKind(k analysis.Kind) protocol.SymbolKind {
	switch k {
	case analysis.KindPackage:
		return protocol.SymbolKindPackage
	case analysis.KindModule:
		return protocol.SymbolKindModule
	case analysis.KindClass, analysis.KindTypeAlias:
		return protocol.SymbolKindClass
	case analysis.KindInterface, analysis.KindTrait:
		return protocol.SymbolKindInterface
	case analysis.KindObject:
		return protocol.SymbolKindObject
	case analysis.KindEnum:
		return protocol.SymbolKindEnum
	case analysis.KindEnumEntry:
		return protocol.SymbolKindEnumMember
	case analysis.KindStruct:
		return protocol.SymbolKindStruct
	case analysis.KindFunction, analysis.KindLambda:
		return protocol.SymbolKindFunction
	case analysis.KindMethod:
		return protocol.SymbolKindMethod
	case analysis.KindConstructor:
		return protocol.SymbolKindConstructor
	case analysis.KindProperty:
		return protocol.SymbolKindProperty
	case analysis.KindField:
		return protocol.SymbolKindField
	case analysis.KindConstant:
		return protocol.SymbolKindConstant
	case analysis.KindTypeParameter:
		return protocol.SymbolKindTypeParameter
	}
	return protocol.SymbolKindVariable
}
