package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/structure"
	"github.com/kast-dev/kast/analysis/tokens"
)

// DocumentSymbol answers textDocument/documentSymbol with a tree.
func (l *LSP) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	r := l.request(ctx)
	path, f, _, err := r.file(p.TextDocument.URI)
	if err != nil {
		return empty[protocol.DocumentSymbolResult](protocol.DocumentSymbolSlice{}, err)
	}
	var convert func([]structure.Symbol) []protocol.DocumentSymbol
	convert = func(syms []structure.Symbol) []protocol.DocumentSymbol {
		out := make([]protocol.DocumentSymbol, 0, len(syms))
		for _, s := range syms {
			d := f.Defs[s.Def]
			ds := protocol.DocumentSymbol{
				Name: d.Name, Kind: symbolKind(d.Kind),
				Range: r.rng(path, d.FullSpan), SelectionRange: r.rng(path, d.NameSpan),
				Children: convert(s.Children),
			}
			if detail := d.Signature; detail != "" {
				ds.Detail = &detail
			} else if d.TypeName != "" {
				ds.Detail = &d.TypeName
			}
			out = append(out, ds)
		}
		return out
	}
	return protocol.DocumentSymbolSlice(convert(structure.Symbols(f))), nil
}

// FoldingRanges answers textDocument/foldingRange.
func (l *LSP) FoldingRanges(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	r := l.request(ctx)
	path, f, d, err := r.file(p.TextDocument.URI)
	if err != nil {
		return empty([]protocol.FoldingRange{}, err)
	}
	folds, err := structure.Folds(ctx, path, d.Text, f)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.FoldingRange, 0, len(folds))
	for _, fd := range folds {
		fr := protocol.FoldingRange{StartLine: uint32(fd.StartLine), EndLine: uint32(fd.EndLine)}
		switch fd.Kind {
		case "comment":
			fr.Kind = protocol.FoldingRangeKindComment
		case "imports":
			fr.Kind = protocol.FoldingRangeKindImports
		}
		out = append(out, fr)
	}
	return out, nil
}

// SelectionRange answers textDocument/selectionRange.
func (l *LSP) SelectionRange(ctx context.Context, p *protocol.SelectionRangeParams) ([]protocol.SelectionRange, error) {
	r := l.request(ctx)
	path, _, d, err := r.file(p.TextDocument.URI)
	if err != nil {
		return empty([]protocol.SelectionRange{}, err)
	}
	offsets := make([]int, len(p.Positions))
	for i, pos := range p.Positions {
		if _, offsets[i], err = r.at(p.TextDocument.URI, pos); err != nil {
			return nil, err
		}
	}
	chains, err := structure.SelectionRanges(ctx, path, d.Text, offsets)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.SelectionRange, len(chains))
	for i, chain := range chains {
		var sel *protocol.SelectionRange
		for j := len(chain) - 1; j >= 0; j-- {
			sel = &protocol.SelectionRange{Range: r.rng(path, chain[j]), Parent: sel}
		}
		if sel != nil {
			out[i] = *sel
		} else {
			out[i] = protocol.SelectionRange{Range: r.between(path, offsets[i], offsets[i])}
		}
	}
	return out, nil
}

// SemanticTokensFull answers textDocument/semanticTokens/full.
func (l *LSP) SemanticTokensFull(ctx context.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return l.semanticTokens(ctx, p.TextDocument.URI, nil)
}

// SemanticTokensRange answers textDocument/semanticTokens/range.
func (l *LSP) SemanticTokensRange(ctx context.Context, p *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return l.semanticTokens(ctx, p.TextDocument.URI, &p.Range)
}

func (l *LSP) semanticTokens(ctx context.Context, u uri.URI, rng *protocol.Range) (*protocol.SemanticTokens, error) {
	r := l.request(ctx)
	path, f, d, err := r.file(u)
	if err != nil {
		return empty(&protocol.SemanticTokens{Data: []uint32{}}, err)
	}
	start, end := 0, len(d.Text)
	if rng != nil {
		if _, start, err = r.at(u, rng.Start); err != nil {
			return nil, err
		}
		if _, end, err = r.at(u, rng.End); err != nil {
			return nil, err
		}
	}
	toks, err := tokens.Tokens(ctx, path, d.Text, f)
	if err != nil {
		return nil, err
	}
	return &protocol.SemanticTokens{Data: encodeTokens(toks, d, r.enc, start, end)}, nil
}

// encodeTokens packs the tokens in [start, end) in the protocol's relative
// form: line delta, start delta, length, type, modifiers.
func encodeTokens(toks []tokens.Token, d *document.Document, enc document.Encoding, start, end int) []uint32 {
	data := []uint32{}
	prevLine, prevChar := 0, 0
	for _, t := range toks {
		if t.Span.End <= start || t.Span.Start >= end {
			continue
		}
		a, b := d.Position(t.Span.Start, enc), d.Position(t.Span.End, enc)
		if a.Line != b.Line || b.Character <= a.Character {
			continue
		}
		if a.Line != prevLine {
			prevChar = 0
		}
		data = append(data, uint32(a.Line-prevLine), uint32(a.Character-prevChar), uint32(b.Character-a.Character), uint32(t.Type), t.Modifiers)
		prevLine, prevChar = a.Line, a.Character
	}
	return data
}

// Diagnostic answers textDocument/diagnostic (pull diagnostics).
func (l *LSP) Diagnostic(ctx context.Context, p *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	r := l.request(ctx)
	report := &protocol.RelatedFullDocumentDiagnosticReport{FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", Items: []protocol.Diagnostic{}}}
	_, f, d, err := r.file(p.TextDocument.URI)
	if err != nil {
		return empty[protocol.DocumentDiagnosticReport](report, err)
	}
	report.Items = diagnostics(f, d, r.enc)
	if len(f.Errors) == 0 {
		var toolchain []protocol.Diagnostic
		if found, ok := r.session.checks.cached(d); ok {
			toolchain = toolchainDiagnostics(found, d, r.enc)
		}
		report.Items = append(report.Items, semanticDiagnostics(ctx, r.snap, uriPath(p.TextDocument.URI), d, r.enc, toolchain)...)
		report.Items = append(report.Items, toolchain...)
	}
	return report, nil
}
