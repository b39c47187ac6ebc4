package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/semantic"
	"github.com/kast-dev/kast/analysis/workspace"
)

// openSnapshot is the engine's snapshot with every open document over its
// index, as a request would see it.
func (s *session) openSnapshot(docs *document.Snapshot) *workspace.Snapshot {
	var overlay []workspace.Doc
	for _, u := range docs.URIs() {
		d, _ := docs.Document(u)
		if p := uriPath(uri.URI(u)); p != "" {
			overlay = append(overlay, workspace.Doc{Path: p, Version: d.Version, Text: d.Text})
		}
	}
	return s.engine.Snapshot(overlay)
}

// semanticDiagnostics runs kast's own checks (analysis/semantic) over an
// open document, leaving out what a toolchain reported on the same line.
func semanticDiagnostics(ctx context.Context, snap *workspace.Snapshot, path string, doc *document.Document,
	enc document.Encoding, toolchain []protocol.Diagnostic) []protocol.Diagnostic {
	taken := map[uint32]bool{}
	for _, d := range toolchain {
		taken[d.Range.Start.Line] = true
	}
	var out []protocol.Diagnostic
	for _, f := range semantic.Check(ctx, snap, path, doc.Text) {
		start, end := doc.Position(f.Span.Start, enc), doc.Position(f.Span.End, enc)
		if taken[uint32(start.Line)] {
			continue
		}
		severity := protocol.DiagnosticSeverityError
		if f.Severity == semantic.Warning {
			severity = protocol.DiagnosticSeverityWarning
		}
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(start.Line), Character: uint32(start.Character)},
				End:   protocol.Position{Line: uint32(end.Line), Character: uint32(end.Character)},
			},
			Severity: severity,
			Code:     protocol.String(f.Code),
			Source:   protocol.NewOptional(semantic.Source),
			Message:  protocol.String(f.Message),
		})
	}
	return out
}
