// Package scip writes a workspace's index as a SCIP index (Sourcegraph's
// Code Intelligence Protocol): one document per file with its occurrences
// (definitions, references, imports, writes) and the symbols it defines,
// their documentation and relationships (implementations, type
// definitions), named with SCIP's symbol grammar and the ecosystem's
// package names, so that a code host serves kast's navigation across
// repositories.
package scip

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Snapshot is what an export reads: a workspace view with its resolver and
// every use of every definition visible beyond a body (a
// *workspace.Snapshot, whose stored uses make that one scan).
type Snapshot interface {
	navigate.Snapshot
	EachUse(ctx context.Context, progress func(done, total int), use func(def resolve.DefID, ref resolve.Reference)) error
}

// Options configures Export.
type Options struct {
	// ToolVersion is kast's version, written in the index's metadata.
	ToolVersion string
	// Progress, which may be nil, hears of each document written.
	Progress func(done, total int)
}

// Stats count what an export wrote.
type Stats struct {
	Documents     int `json:"documents"`
	Occurrences   int `json:"occurrences"`
	Symbols       int `json:"symbols"`
	Relationships int `json:"relationships"`
}

// Export writes the SCIP index of the snapshot's files under root to w.
// Documents are written one at a time (an index is a stream of its
// fields), so memory holds one document and the workspace's resolved uses.
// Only confident resolutions become occurrences: SCIP has no notion of a
// guess, and a wrong jump is worse than none.
func Export(ctx context.Context, s Snapshot, root string, w io.Writer, opts Options) (Stats, error) {
	root = filepath.Clean(root)
	var paths []string
	for _, p := range s.Files() {
		if within(root, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)

	uses, err := collectUses(ctx, s, root)
	if err != nil {
		return Stats{}, err
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	meta := &scipb.Metadata{
		Version:              scipb.ProtocolVersion_UnspecifiedProtocolVersion,
		ToolInfo:             &scipb.ToolInfo{Name: "kast", Version: opts.ToolVersion},
		ProjectRoot:          (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String(),
		TextDocumentEncoding: scipb.TextEncoding_UTF8,
	}
	if err := writeField(bw, 1, meta); err != nil {
		return Stats{}, err
	}

	e := &exporter{snap: s, root: root, r: s.Resolver(), pkgs: newPackages(root)}
	e.symbols = newSymbolTable(s, e.pkgs)
	e.pkgHomes = e.goPackageHomes(paths)
	var st Stats
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		doc := e.document(p, uses[p])
		delete(uses, p)
		if doc == nil {
			continue
		}
		st.Documents++
		st.Occurrences += len(doc.Occurrences)
		st.Symbols += len(doc.Symbols)
		for _, si := range doc.Symbols {
			st.Relationships += len(si.Relationships)
		}
		if err := writeField(bw, 2, doc); err != nil {
			return st, err
		}
		e.symbols.forget()
		if opts.Progress != nil {
			opts.Progress(i+1, len(paths))
		}
	}
	return st, bw.Flush()
}

// writeField appends one field of the Index message: a length-delimited
// message with the field's number, as proto.Marshal would write it inside
// the whole index.
func writeField(w io.Writer, num protowire.Number, m proto.Message) error {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding the SCIP index: %w", err)
	}
	buf := protowire.AppendTag(nil, num, protowire.BytesType)
	buf = protowire.AppendVarint(buf, uint64(len(data)))
	if _, err := w.Write(buf); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsLocal(rel)
}

// use is one confident reference, kept until its file is written.
type use struct {
	def  resolve.DefID
	span analysis.Span
	role analysis.Role
}

// collectUses gathers every confident use of a definition visible beyond a
// body, by the file the reference is in.
func collectUses(ctx context.Context, s Snapshot, root string) (map[string][]use, error) {
	out := map[string][]use{}
	intern := map[string]string{}
	err := s.EachUse(ctx, nil, func(def resolve.DefID, ref resolve.Reference) {
		if ref.Uncertain || ref.Ambiguous || !within(root, ref.Ref.Path) {
			return
		}
		if p, ok := intern[def.Path]; ok {
			def.Path = p
		} else {
			intern[def.Path] = def.Path
		}
		out[ref.Ref.Path] = append(out[ref.Ref.Path], use{def: def, span: ref.Span, role: ref.Role})
	})
	return out, err
}

type exporter struct {
	snap    Snapshot
	root    string
	r       *resolve.Resolver
	pkgs    *packages
	symbols *symbolTable
	// pkgHomes maps a Go package symbol to the document that defines it.
	pkgHomes map[string]string
}

// document builds one file's SCIP document.
func (e *exporter) document(path string, uses []use) *scipb.Document {
	f := e.snap.File(path)
	fs := e.symbols.file(path)
	if f == nil || fs == nil {
		return nil
	}
	rel, _ := filepath.Rel(e.root, path)
	doc := &scipb.Document{
		RelativePath:     filepath.ToSlash(rel),
		Language:         language(f.Lang),
		PositionEncoding: scipb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart,
	}
	occs := map[occKey]*scipb.Occurrence{}
	add := func(sym string, span analysis.Span, roles scipb.SymbolRole, enclosing *analysis.Span) {
		if sym == "" || span.End <= span.Start {
			return
		}
		k := occKey{sym, span.Start, span.End}
		if o, ok := occs[k]; ok {
			o.SymbolRoles |= int32(roles)
			return
		}
		o := &scipb.Occurrence{Range: scipRange(span), Symbol: sym, SymbolRoles: int32(roles)}
		if enclosing != nil && enclosing.End > enclosing.Start {
			o.EnclosingRange = scipRange(*enclosing)
		}
		occs[k] = o
	}

	defined := map[string]bool{}
	for i, d := range f.Defs {
		sym := fs.symbols[i]
		if sym == "" {
			continue
		}
		full := d.FullSpan
		add(sym, d.NameSpan, scipb.SymbolRole_Definition, &full)
		if defined[sym] {
			continue
		}
		defined[sym] = true
		doc.Symbols = append(doc.Symbols, e.symbolInfo(path, f, int32(i), sym))
	}

	for _, u := range uses {
		add(e.symbols.of(u.def), u.span, roleOf(u.role), nil)
	}
	e.localUses(path, f, fs, add)
	e.goImports(path, f, fs, doc, defined, add)

	doc.Occurrences = make([]*scipb.Occurrence, 0, len(occs))
	for _, o := range occs {
		doc.Occurrences = append(doc.Occurrences, o)
	}
	slices.SortFunc(doc.Occurrences, func(a, b *scipb.Occurrence) int {
		return cmp.Or(slices.Compare(a.Range, b.Range), cmp.Compare(a.Symbol, b.Symbol))
	})
	return doc
}

type occKey struct {
	symbol     string
	start, end int
}

// scipRange is a span as SCIP writes it: [line, col, endCol] on one line,
// else [line, col, endLine, endCol], columns in UTF-8 bytes.
func scipRange(s analysis.Span) []int32 {
	a, b := s.StartPoint, s.EndPoint
	if a.Line == b.Line {
		return []int32{int32(a.Line), int32(a.Col), int32(b.Col)}
	}
	return []int32{int32(a.Line), int32(a.Col), int32(b.Line), int32(b.Col)}
}

func roleOf(r analysis.Role) scipb.SymbolRole {
	var out scipb.SymbolRole
	if r&analysis.RoleImport != 0 {
		out |= scipb.SymbolRole_Import
	}
	if r&analysis.RoleWrite != 0 {
		out |= scipb.SymbolRole_WriteAccess
	}
	if r&(analysis.RoleRead|analysis.RoleCall) != 0 {
		out |= scipb.SymbolRole_ReadAccess
	}
	return out
}

// localUses adds the references to the file's own parameters and locals:
// the stored uses leave them out, and only this file can name them.
func (e *exporter) localUses(path string, f *analysis.FileFacts, fs *fileSymbols, add func(string, analysis.Span, scipb.SymbolRole, *analysis.Span)) {
	_, bound := resolve.BodyBindings(f)
	for i, ref := range f.Refs {
		if !bound[i] {
			continue
		}
		for _, c := range e.r.Resolve(resolve.RefID{Path: path, Index: int32(i)}) {
			if c.Uncertain || c.Def.Path != path || int(c.Def.Index) >= len(fs.symbols) || c.Def.Index < 0 {
				break
			}
			add(fs.symbols[c.Def.Index], ref.Span, roleOf(ref.Role), nil)
			break
		}
	}
}

// goImports adds an import occurrence for each Go import of a package of
// this workspace, and defines each Go package's symbol in its first file.
func (e *exporter) goImports(path string, f *analysis.FileFacts, fs *fileSymbols, doc *scipb.Document, defined map[string]bool, add func(string, analysis.Span, scipb.SymbolRole, *analysis.Span)) {
	if f.Lang != "go" || fs.pkg.manager != "gomod" {
		return
	}
	if own := packageSymbol(fs.pkg); e.pkgHomes[own] == path && !defined[own] {
		defined[own] = true
		doc.Symbols = append(doc.Symbols, &scipb.SymbolInformation{Symbol: own, Kind: scipb.SymbolInformation_Package,
			DisplayName: f.Package})
	}
	for _, imp := range f.Imports {
		target := pkg{manager: fs.pkg.manager, name: fs.pkg.name, version: fs.pkg.version, namespaces: []string{imp.Path}}
		if sym := packageSymbol(target); e.pkgHomes[sym] != "" {
			add(sym, imp.Span, scipb.SymbolRole_Import, nil)
		} // else another module's package, which no document defines
	}
}

// goPackageHomes names each Go package of the workspace by its symbol and
// picks the file whose document defines it: its first.
func (e *exporter) goPackageHomes(paths []string) map[string]string {
	homes := map[string]string{}
	for _, p := range paths {
		if filepath.Ext(p) != ".go" {
			continue
		}
		if pk := e.pkgs.of(p, "go", ""); pk.manager == "gomod" {
			sym := packageSymbol(pk)
			if _, ok := homes[sym]; !ok {
				homes[sym] = p
			}
		}
	}
	return homes
}
