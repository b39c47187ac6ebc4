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
// checked. One worker per connection runs them, every document waiting at
// that moment in one run per root: an editor restoring fifty tabs costs one
// go list, not fifty.
type toolchainChecks struct {
	mu      sync.Mutex
	results map[string]checkedDoc // by uri
	waiting map[string]pendingCheck
	wake    chan struct{} // nil until the worker starts
	// running holds the open documents of the run under way, which stop
	// stops once they are all closed.
	running map[string]bool
	stop    context.CancelFunc
}

type checkedDoc struct {
	version int32
	found   []checks.Diagnostic
}

type pendingCheck struct {
	version    int32
	path, root string
	done       func()
}

// cached returns the findings for the document's version, if checked.
func (c *toolchainChecks) cached(doc *document.Document) ([]checks.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.results[doc.URI]
	return r.found, ok && r.version == doc.Version
}

// startChecks queues the document's version for checking, replacing an
// older version waiting, and calls done when the findings are in. Only a
// version the disk holds is checked (at open and at each save): a toolchain
// run takes seconds, and one per keystroke would queue up behind the typing.
func (s *session) startChecks(doc *document.Document, done func()) {
	path := uriPath(uri.URI(doc.URI))
	if checks.SourceFor(path) == "" {
		return
	}
	if info, err := os.Stat(path); err != nil || info.Size() != int64(len(doc.Text)) {
		return // unsaved (a size that differs needs no read)
	}
	if disk, err := os.ReadFile(path); err != nil || string(disk) != string(doc.Text) {
		return
	}
	root := filepath.Dir(path)
	if ws := s.engine.Owner(path); ws != nil {
		root = ws.Root
	}
	c := &s.checks
	c.mu.Lock()
	if c.wake == nil {
		c.results, c.waiting, c.wake = map[string]checkedDoc{}, map[string]pendingCheck{}, make(chan struct{}, 1)
		s.wg.Go(s.runChecks)
	}
	c.waiting[doc.URI] = pendingCheck{doc.Version, path, root, done}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // the worker is awake already
	}
}

// toolchainHook, set by tests only, hears each toolchain run start.
var toolchainHook func(ctx context.Context, root string)

// runChecks is the connection's checks worker.
func (s *session) runChecks() {
	c := &s.checks
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-c.wake:
		}
		// A toolchain run takes seconds of CPU: after the first index, which
		// reference queries wait for (on the standard library, go list and
		// the type check of a file opened at the start took a core for the
		// 20 s of the index and doubled it), then after the requests
		// running (see publish), and without the documents closed meanwhile.
		if s.waitIndexed(s.ctx) != nil {
			return
		}
		s.engine.AwaitRequests(s.ctx, maxDiagnosticWait)
		ctx, stop := context.WithCancel(s.ctx)
		c.mu.Lock()
		batch := c.waiting
		c.waiting = map[string]pendingCheck{}
		c.running, c.stop = map[string]bool{}, stop
		for docURI := range batch {
			c.running[docURI] = true
		}
		c.mu.Unlock()
		byRoot := map[string][]string{}
		for _, p := range batch {
			byRoot[p.root] = append(byRoot[p.root], p.path)
		}
		found := map[string][]checks.Diagnostic{}
		for root, paths := range byRoot {
			if toolchainHook != nil {
				toolchainHook(ctx, root)
			}
			res := checks.Run(ctx, checks.Request{Root: root, Files: paths})
			for _, d := range res.Diagnostics {
				found[d.Path] = append(found[d.Path], d)
			}
		}
		closed := ctx.Err() != nil // every document closed: nothing to publish
		c.mu.Lock()
		c.running, c.stop = nil, nil
		c.mu.Unlock()
		stop()
		if s.ctx.Err() != nil {
			return
		}
		if closed {
			continue
		}
		c.mu.Lock()
		for docURI, p := range batch {
			c.results[docURI] = checkedDoc{p.version, found[p.path]}
		}
		c.mu.Unlock()
		for _, p := range batch {
			p.done()
		}
	}
}

// forget drops a closed document's findings and its waiting check, and
// stops the run under way once none of its documents is open: a go list
// and type check of a document opened for a glance took a core for 20 s.
func (c *toolchainChecks) forget(docURI string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiting, docURI)
	delete(c.results, docURI)
	if c.running[docURI] {
		delete(c.running, docURI)
		if len(c.running) == 0 {
			c.stop()
		}
	}
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
