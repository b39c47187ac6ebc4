package resolve

import (
	"cmp"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript's global declarations: a declaration file that neither
// imports nor exports (TypeScript's lib.*.d.ts, most of @types/node's) is a
// script whose top-level declarations every file sees without an import
// (Promise, Error, setTimeout). A name nothing else declares resolves to
// them, in the order TypeScript reads the files: its own libraries first,
// lib.es5.d.ts, on which the others build, before the later editions.

// globals finds the global declarations named like ref, best file first.
func (r *Resolver) globals(from string, ref analysis.Ref) []Candidate {
	var out []Candidate
	for _, e := range r.defs(ref.Name) {
		if e.Nested || e.Lang != "typescript" || !strings.HasSuffix(e.Path, ".d.ts") {
			continue
		}
		g := r.file(e.Path)
		if g == nil {
			continue
		}
		d := g.Defs[e.Index]
		if d.Visibility != tsGlobalVisibility && !isScript(g) {
			continue
		}
		if d.Container != analysis.None || kindFit(ref.Role, d.Kind) == 0 || !globalReaches(from, e.Path) {
			continue
		}
		// Merged declarations (interface Error, var Error) are one symbol:
		// all equally sure, in file order.
		out = append(out, r.candidate(e.DefID, confImport, ViaImport))
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(libRank(a.Def.Path), libRank(b.Def.Path)), strings.Compare(a.Def.Path, b.Def.Path),
			cmp.Compare(a.NameSpan.Start, b.NameSpan.Start))
	})
	return out
}

// globalReaches reports whether the globals of declaration file decl are
// seen from file from: a package installed in a node_modules folder serves
// the files under that folder's parent, as TypeScript looks @types up from
// a file's folder upwards (a monorepo package's own @types/node is not its
// siblings').
func globalReaches(from, decl string) bool {
	i := strings.Index(decl, "/node_modules/")
	return i < 0 || strings.HasPrefix(from, decl[:i+1])
}

// tsGlobalVisibility marks a declaration of a `declare global` block
// (ecma.GlobalVisibility).
const tsGlobalVisibility = "global"

// isScript reports whether a declaration file declares globals: no
// imports and no exported top-level declaration.
func isScript(f *analysis.FileFacts) bool {
	if len(f.Imports) > 0 {
		return false
	}
	for _, d := range f.Defs {
		if d.Container == analysis.None && d.Visibility == "public" {
			return false
		}
	}
	return true
}

// libRank orders declaration files as TypeScript loads them: lib.es5.d.ts,
// then the editions by year (lib.es2015.*, …, lib.esnext.*), then the other
// libraries of the typescript package (lib.dom.d.ts), then everything else.
func libRank(p string) int {
	base := path.Base(p)
	if path.Base(path.Dir(path.Dir(p))) != "typescript" || !strings.HasPrefix(base, "lib.") {
		return 1 << 20
	}
	edition, _, _ := strings.Cut(strings.TrimPrefix(base, "lib."), ".")
	switch {
	case edition == "es5":
		return 0
	case edition == "esnext":
		return 9999
	case strings.HasPrefix(edition, "es"):
		if year, err := strconv.Atoi(edition[2:]); err == nil {
			return year
		}
	}
	return 10000
}

// GlobalValues are the values every file from sees without an import, as
// tsserver lists them after `globalThis.`: the top-level variables,
// functions, classes and namespaces of TypeScript's own libraries that a
// project's default `lib` loads (lib.es5.d.ts, the yearly editions, the
// DOM's), read beside the lib.es5.d.ts that from reaches. Types alone
// (`interface AbortSignalEventMap`) are no values, and the libraries a
// project names explicitly (scripthost's ActiveXObject, the web worker's,
// esnext's) are left out.
func (r *Resolver) GlobalValues(from string) []DefID {
	dir := ""
	for _, e := range r.defs("Object") {
		if path.Base(e.Path) == "lib.es5.d.ts" && globalReaches(from, e.Path) {
			dir = path.Dir(e.Path)
			break
		}
	}
	if dir == "" {
		return nil
	}
	var out []DefID
	for _, p := range r.ws.Files() {
		if path.Dir(p) != dir || !defaultLibFile(path.Base(p)) {
			continue
		}
		g := r.file(p)
		if g == nil || !isScript(g) {
			continue
		}
		for i, d := range g.Defs {
			if d.Container == analysis.None && d.Scope == 0 && globalValueKind(d.Kind) {
				out = append(out, DefID{p, int32(i)})
			}
		}
	}
	return out
}

// LoadedLibFile reports whether a file is no library of the typescript
// package's lib folder that a project loads only when it names it (the
// scripthost's, a web worker's, esnext's): those declare no globals of
// a project's files.
func LoadedLibFile(p string) bool {
	base := path.Base(p)
	if path.Base(path.Dir(path.Dir(p))) != "typescript" || !strings.HasPrefix(base, "lib.") || !strings.HasSuffix(base, ".d.ts") {
		return true
	}
	return defaultLibFile(base) || base == "lib.d.ts"
}

// defaultLibFile reports whether a file of the typescript package's lib
// folder is one a project loads without naming it: lib.es5.d.ts, an
// edition's (lib.es2020.promise.d.ts) and the DOM's.
func defaultLibFile(base string) bool {
	name, ok := strings.CutPrefix(base, "lib.")
	if !ok || !strings.HasSuffix(name, ".d.ts") {
		return false
	}
	part, _, _ := strings.Cut(name, ".")
	if part == "es5" || part == "dom" {
		return true
	}
	year, ok := strings.CutPrefix(part, "es")
	_, err := strconv.Atoi(year)
	return ok && len(year) == 4 && err == nil
}

// globalValueKind reports whether a global declaration of kind k is a
// value `globalThis.` has.
func globalValueKind(k analysis.Kind) bool {
	switch k {
	case analysis.KindVariable, analysis.KindConstant, analysis.KindFunction, analysis.KindClass, analysis.KindModule:
		return true
	}
	return false
}

// MergedDeclarations are the other declarations of a global interface that
// TypeScript merges with t: lib.es5.d.ts declares ObjectConstructor, and
// lib.es2015.core.d.ts adds assign to it. None when t is no global
// interface of a declaration file.
func (r *Resolver) MergedDeclarations(t DefID) []DefID {
	g, d, ok := r.entry(t)
	if !ok || !ecmaLang(g.Lang) || d.Kind != analysis.KindInterface || d.Container != analysis.None ||
		!strings.HasSuffix(t.Path, ".d.ts") {
		return nil
	}
	if d.Visibility != tsGlobalVisibility && !isScript(g) {
		return r.augmentations(t, d)
	}
	var out []DefID
	for _, c := range r.globals(t.Path, analysis.Ref{Name: d.Name, Role: analysis.RoleType}) {
		if _, e, ok := r.entry(c.Def); ok && c.Def != t && e.Kind == analysis.KindInterface {
			out = append(out, c.Def)
		}
	}
	return out
}

// mergedDeclared finds name among the members of the declarations merged
// with global interface t.
func (r *Resolver) mergedDeclared(t DefID, name string, role analysis.Role, conf float64) []Candidate {
	var out []Candidate
	for _, m := range r.MergedDeclarations(t) {
		out = append(out, r.declared(m, name, role, conf)...)
	}
	return out
}

// withoutNamespaces takes, for a TypeScript supertype's candidates, the
// types among them, or the type a candidate namespace merges with: `extends
// Stream` names the class that a namespace of that name merges with
// (@types/node's stream, whose Writable the namespace itself declares), and
// a namespace's declarations are no members of an instance.
func (r *Resolver) withoutNamespaces(cands []Candidate) []Candidate {
	var types, merged []Candidate
	for _, c := range cands {
		g, d, ok := r.entry(c.Def)
		if !ok || d.Kind != analysis.KindModule {
			types = append(types, c)
			continue
		}
		for _, i := range r.named(g, d.Name) {
			if e := g.Defs[i]; e.Container == d.Container && (e.Kind == analysis.KindClass || e.Kind == analysis.KindInterface) {
				merged = append(merged, r.candidate(DefID{c.Def.Path, i}, c.Confidence, c.Via))
			}
		}
	}
	if len(types) > 0 {
		return types
	}
	if len(merged) > 0 {
		return merged
	}
	return cands
}

// GlobalTypes are the global interfaces and classes named name that file
// from sees (lib.es5.d.ts's Function, and the editions' additions to it).
func (r *Resolver) GlobalTypes(from, name string) []DefID {
	var out []DefID
	for _, c := range r.globals(from, analysis.Ref{Name: name, Role: analysis.RoleType}) {
		if _, d, ok := r.entry(c.Def); ok && (d.Kind == analysis.KindInterface || d.Kind == analysis.KindClass) {
			out = append(out, c.Def)
		}
	}
	return out
}
