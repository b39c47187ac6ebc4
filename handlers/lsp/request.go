package lsp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server"
)

// request is what one LSP request works with: the engine snapshot (indexes
// overlaid with the open documents as they were when the request arrived)
// and the position encoding, converting between byte offsets and positions
// at the edge.
type request struct {
	ctx     context.Context
	session *session
	snap    *workspace.Snapshot
	enc     document.Encoding
	open    map[string]*document.Document // by path
	disk    map[string]*document.Document // files read for conversions
	texts   map[string][]byte             // files read, nil when unreadable
	rule    *confine.Rule                 // the confinement rule over the session's roots
	refused map[string]error              // files the confinement rule kept from disk
}

// errSkip means the request names a file kast cannot answer for (unknown,
// unreadable or not a file URI): the answer is empty, not an error.
var errSkip = errors.New("no such file")

// empty turns errSkip into an empty answer.
func empty[T any](v T, err error) (T, error) {
	if errors.Is(err, errSkip) {
		var zero T
		return zero, nil
	}
	return v, err
}

func (l *LSP) request(ctx context.Context) *request {
	s := l.session(ctx)
	r := &request{ctx: ctx, session: s, enc: encoding(server.ConnOf(ctx)), open: map[string]*document.Document{}, disk: map[string]*document.Document{},
		texts: map[string][]byte{}, refused: map[string]error{}}
	docs := snapshotOf(ctx)
	var overlay []workspace.Doc
	for _, u := range docs.URIs() {
		d, _ := docs.Document(u)
		if p := uriPath(uri.URI(u)); p != "" {
			r.open[p] = d
			overlay = append(overlay, workspace.Doc{Path: p, Version: d.Version, Text: d.Text})
		}
	}
	r.snap = s.engine.Snapshot(overlay)
	// Library sources are read like the workspace's (never written: edits
	// check paths against the workspace roots alone).
	r.rule = confine.New(append(s.rootPaths(), r.snap.LibraryDirs()...))
	return r
}

// requestWhole is request for answers that list every use or subtype in
// the workspace (references, rename, incoming calls, implementations,
// subtypes). During a root's first index such a list would silently leave
// out the files not indexed yet, and a rename would leave them broken, so
// these wait for the first index, whose $/progress the editor shows.
// Definitions, completion and symbols answer at once from what is indexed.
func (l *LSP) requestWhole(ctx context.Context) (*request, error) {
	if err := l.session(ctx).waitIndexed(ctx); err != nil {
		return nil, err
	}
	return l.request(ctx), nil
}

// uriPath is the file path of a file URI, or "" for other schemes.
func uriPath(u uri.URI) string {
	if !u.IsFile() {
		return ""
	}
	return u.FsPath()
}

// document returns a file's text for conversions: the open document, else
// the file on disk.
func (r *request) document(path string) (*document.Document, bool) {
	if d, ok := r.open[path]; ok {
		return d, true
	}
	if d, ok := r.disk[path]; ok {
		return d, d != nil
	}
	var d *document.Document
	if src, ok := r.text(path); ok {
		d = document.New("", "", 0, src)
	}
	r.disk[path] = d
	return d, d != nil
}

// text returns a file's text: the open document's, else the file on disk
// if the confinement rule lets kast read it (the editor sent the open ones;
// a file on disk is read only at a real path under a workspace root).
func (r *request) text(path string) ([]byte, bool) {
	if d, ok := r.open[path]; ok {
		return d.Text, true
	}
	if t, ok := r.texts[path]; ok {
		return t, t != nil
	}
	real, err := r.rule.Check(path, confine.Read)
	var src []byte
	if err != nil {
		r.refused[path] = err
	} else if src, err = os.ReadFile(real); err != nil {
		src = nil
	}
	r.texts[path] = src
	return src, src != nil
}

// unreadable is the error for a file that is not open and that kast may
// not read from disk, or errSkip when it just cannot be read.
func (r *request) unreadable(path string) error {
	var ce *confine.Error
	if errors.As(r.refused[path], &ce) {
		return server.Error(jsonrpc2.InvalidParams, server.CodeInvalidParams, ce.Error(),
			map[string]any{"rule": string(ce.Reason), "filePath": path, "link": ce.Link})
	}
	return errSkip
}

// at converts a document position to a file path and byte offset. Unknown
// files give errSkip; a position outside the document is invalid params.
func (r *request) at(u uri.URI, p protocol.Position) (string, int, error) {
	path := uriPath(u)
	if path == "" {
		return "", 0, errSkip
	}
	d, ok := r.document(path)
	if !ok {
		return "", 0, r.unreadable(path)
	}
	off, err := d.Offset(document.Position{Line: int(p.Line), Character: int(p.Character)}, r.enc)
	if err != nil {
		return "", 0, server.InvalidParams("%s: %v", u, err)
	}
	return path, off, nil
}

// file returns the facts and text of the document at u, or errSkip.
func (r *request) file(u uri.URI) (string, *analysis.FileFacts, *document.Document, error) {
	path := uriPath(u)
	if path == "" {
		return "", nil, nil, errSkip
	}
	f := r.snap.File(path)
	d, ok := r.document(path)
	if !ok {
		return "", nil, nil, r.unreadable(path)
	}
	if f == nil {
		return "", nil, nil, errSkip
	}
	return path, f, d, nil
}

// position converts a byte offset of a file to a position. p is the
// offset's line and byte column, which the facts carry.
func (r *request) position(path string, offset int, p analysis.Point) protocol.Position {
	if r.enc == document.UTF16 {
		if r.snap.ASCIILine(path, p.Line) {
			// Most results lie on ASCII lines of indexed files: no read
			// at all.
			return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Col)}
		}
		// The column counts the line's text before offset, which the byte
		// column locates: a reference list spanning thousands of files
		// converts without indexing each file's lines.
		if t, ok := r.text(path); ok {
			if start := offset - p.Col; start >= 0 && offset <= len(t) && (start == 0 || t[start-1] == '\n') &&
				bytes.IndexByte(t[start:offset], '\n') < 0 {
				return protocol.Position{Line: uint32(p.Line), Character: utf16Width(t[start:offset])}
			}
		}
	}
	if r.enc != document.UTF8 {
		if d, ok := r.document(path); ok {
			pos := d.Position(offset, r.enc)
			return protocol.Position{Line: uint32(pos.Line), Character: uint32(pos.Character)}
		}
	}
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Col)}
}

// utf16Width is the length of UTF-8 text in UTF-16 code units.
func utf16Width(b []byte) uint32 {
	n := uint32(0)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		c, size := utf8.DecodeRune(b[i:])
		if c >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

func (r *request) rng(path string, s analysis.Span) protocol.Range {
	return protocol.Range{Start: r.position(path, s.Start, s.StartPoint), End: r.position(path, s.End, s.EndPoint)}
}

// between converts a byte range of a file known to be readable.
func (r *request) between(path string, start, end int) protocol.Range {
	d, _ := r.document(path)
	s, e := d.Position(start, r.enc), d.Position(end, r.enc)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(s.Line), Character: uint32(s.Character)},
		End:   protocol.Position{Line: uint32(e.Line), Character: uint32(e.Character)},
	}
}

func (r *request) loc(path string, s analysis.Span) protocol.Location {
	return protocol.Location{URI: uri.File(path), Range: r.rng(path, s)}
}

// diagnostics converts a file's syntax errors.
func diagnostics(f *analysis.FileFacts, d *document.Document, enc document.Encoding) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	for _, e := range f.Errors {
		start, end := d.Position(e.Span.Start, enc), d.Position(e.Span.End, enc)
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(start.Line), Character: uint32(start.Character)},
				End:   protocol.Position{Line: uint32(end.Line), Character: uint32(end.Character)},
			},
			Severity: protocol.DiagnosticSeverityError,
			Source:   protocol.NewOptional("kast"),
			Message:  protocol.String(e.Message),
		})
	}
	return out
}
