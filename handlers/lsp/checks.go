package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/kast-dev/kast/analysis/checks"
	"github.com/kast-dev/kast/analysis/document"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The languages' own checks (analysis/checks: go/types, tsc, pyright,
// kotlinc) take from a fraction of a second to many: they run in the
// background when a document that parses is opened or saved, and their
// findings join its diagnostics when they arrive, for the version they
// checked.
type toolchainChecks struct {
	mu      sync.Mutex
	results map[string]checkedDoc // by uri
	running map[string]context.CancelFunc
}

type checkedDoc struct {
	version int32
	found   []checks.Diagnostic
}

// cached returns the findings for the document's version, if checked.
func (c *toolchainChecks) cached(doc *document.Document) ([]checks.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.results[doc.URI]
	return r.found, ok && r.version == doc.Version
}

// startChecks checks the document's version in the background, replacing a
// check of an older one, and calls done when the findings are in. Only a
// version the disk holds is checked (at open and at each save): a toolchain
// run takes seconds, and one per keystroke would queue up behind the typing.
func (s *session) startChecks(doc *document.Document, done func()) {
	path := uriPath(uri.URI(doc.URI))
	if checks.SourceFor(path) == "" {
		return
	}
	if disk, err := os.ReadFile(path); err != nil || string(disk) != string(doc.Text) {
		return
	}
	c := &s.checks
	ctx, cancel := context.WithCancel(s.ctx)
	c.mu.Lock()
	if c.results == nil {
		c.results, c.running = map[string]checkedDoc{}, map[string]context.CancelFunc{}
	}
	if stop, ok := c.running[doc.URI]; ok {
		stop()
	}
	c.running[doc.URI] = cancel
	c.mu.Unlock()
	root := filepath.Dir(path)
	if ws := s.engine.Owner(path); ws != nil {
		root = ws.Root
	}
	s.wg.Go(func() {
		defer cancel()
		res := checks.Run(ctx, checks.Request{Root: root, Files: []string{path}})
		if ctx.Err() != nil {
			return
		}
		c.mu.Lock()
		c.results[doc.URI] = checkedDoc{doc.Version, res.Diagnostics}
		delete(c.running, doc.URI)
		c.mu.Unlock()
		done()
	})
}

// forget drops a closed document's findings and stops its check.
func (c *toolchainChecks) forget(docURI string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stop, ok := c.running[docURI]; ok {
		stop()
		delete(c.running, docURI)
	}
	delete(c.results, docURI)
}

// toolchainDiagnostics renders findings as LSP diagnostics in doc.
func toolchainDiagnostics(found []checks.Diagnostic, doc *document.Document, enc document.Encoding) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(found))
	for _, f := range found {
		span := f.Span(doc.Text)
		start, end := doc.Position(span.Start, enc), doc.Position(span.End, enc)
		severity := protocol.DiagnosticSeverityError
		if f.Severity == "warning" {
			severity = protocol.DiagnosticSeverityWarning
		}
		d := protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(start.Line), Character: uint32(start.Character)},
				End:   protocol.Position{Line: uint32(end.Line), Character: uint32(end.Character)},
			},
			Severity: severity,
			Source:   protocol.NewOptional(f.Source),
			Message:  protocol.String(f.Message),
		}
		if f.Code != "" {
			d.Code = protocol.String(f.Code)
		}
		out = append(out, d)
	}
	return out
}
