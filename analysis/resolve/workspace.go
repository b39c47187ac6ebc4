// Package resolve binds references to definitions across a workspace of
// extracted files. Resolution is syntactic: it follows scopes, containers,
// packages, imports and inferred receiver types, and says how sure it is.
package resolve

import (
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// DefID names a definition: its file and index into that file's Defs.
type DefID struct {
	Path  string
	Index int32
}

// RefID names a reference: its file and index into that file's Refs.
type RefID struct {
	Path  string
	Index int32
}

// SupertypeID names an inheritance edge: its file and index into Supertypes.
type SupertypeID struct {
	Path  string
	Index int32
}

// DefEntry is a definition as a workspace's name tables list it: its id,
// with what lets a lookup rule it out without decoding its file.
type DefEntry struct {
	DefID
	Lang     string
	Kind     analysis.Kind
	NameSpan analysis.Span
	// Nested is set when the definition is known to be declared inside
	// another one. Unset, it may still be: a name table does not say so
	// for a container without a name.
	Nested bool
}

// Workspace is the set of files the resolver sees. The storage index
// implements it over badger; Memory implements it for tests and small runs.
type Workspace interface {
	// File returns a file's facts, or nil if the workspace does not hold it.
	File(path string) *analysis.FileFacts
	// Files lists every file path.
	Files() []string
	// FilesInPackage lists the files of a language that declare package pkg.
	FilesInPackage(lang, pkg string) []string
	// DefsNamed lists every definition with the name.
	DefsNamed(name string) []DefEntry
	// RefsNamed lists every reference with the name.
	RefsNamed(name string) []RefID
	// SupertypesNamed lists every inheritance edge to a type with the name,
	// the type's base name without qualifier or type arguments ("List" for
	// "java.util.List<T>").
	SupertypesNamed(name string) []SupertypeID
}

// Memory is an in-memory Workspace.
type Memory struct {
	files  map[string]*analysis.FileFacts
	paths  []string
	pkgs   map[[2]string][]string
	defs   map[string][]DefEntry
	refs   map[string][]RefID
	supers map[string][]SupertypeID
}

// NewMemory returns a workspace holding files.
func NewMemory(files ...*analysis.FileFacts) *Memory {
	m := &Memory{files: map[string]*analysis.FileFacts{}}
	for _, f := range files {
		m.files[f.Path] = f
	}
	m.reindex()
	return m
}

// Put adds or replaces a file.
func (m *Memory) Put(f *analysis.FileFacts) {
	m.files[f.Path] = f
	m.reindex()
}

// Remove drops a file.
func (m *Memory) Remove(path string) {
	delete(m.files, path)
	m.reindex()
}

// reindex rebuilds the name indexes; Memory favours simplicity over update speed.
func (m *Memory) reindex() {
	m.paths = m.paths[:0]
	m.pkgs = map[[2]string][]string{}
	m.defs = map[string][]DefEntry{}
	m.refs = map[string][]RefID{}
	m.supers = map[string][]SupertypeID{}
	for p := range m.files {
		m.paths = append(m.paths, p)
	}
	slices.Sort(m.paths)
	for _, p := range m.paths {
		f := m.files[p]
		key := [2]string{f.Lang, f.Package}
		m.pkgs[key] = append(m.pkgs[key], p)
		for i, d := range f.Defs {
			m.defs[d.Name] = append(m.defs[d.Name], EntryOf(f, int32(i)))
		}
		for i, r := range f.Refs {
			m.refs[r.Name] = append(m.refs[r.Name], RefID{p, int32(i)})
		}
		for i, s := range f.Supertypes {
			name := baseTypeName(s.Name)
			m.supers[name] = append(m.supers[name], SupertypeID{p, int32(i)})
		}
	}
}

// File implements Workspace.
func (m *Memory) File(path string) *analysis.FileFacts { return m.files[path] }

// Files implements Workspace.
func (m *Memory) Files() []string { return m.paths }

// FilesInPackage implements Workspace.
func (m *Memory) FilesInPackage(lang, pkg string) []string { return m.pkgs[[2]string{lang, pkg}] }

// DefsNamed implements Workspace.
func (m *Memory) DefsNamed(name string) []DefEntry { return m.defs[name] }

// EntryOf is the name-table entry of definition i of f.
func EntryOf(f *analysis.FileFacts, i int32) DefEntry {
	d := f.Defs[i]
	return DefEntry{DefID: DefID{f.Path, i}, Lang: f.Lang, Kind: d.Kind, NameSpan: d.NameSpan, Nested: d.Container != analysis.None}
}

// GoDirsNamed implements GoImports.
func (m *Memory) GoDirsNamed(name string) []string {
	var out []string
	for _, p := range m.paths {
		if d := path.Dir(p); m.files[p].Lang == "go" && GoDirName(path.Base(d)) == name && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// GoImportsNamed implements GoImports.
func (m *Memory) GoImportsNamed(name string) []GoImport {
	var out []GoImport
	for _, p := range m.paths {
		if f := m.files[p]; f.Lang == "go" {
			for _, imp := range f.Imports {
				if path.Base(imp.Path) == name {
					out = append(out, GoImport{p, imp.Path})
				}
			}
		}
	}
	return out
}

// RefsNamed implements Workspace.
func (m *Memory) RefsNamed(name string) []RefID { return m.refs[name] }

// SupertypesNamed implements Workspace.
func (m *Memory) SupertypesNamed(name string) []SupertypeID { return m.supers[name] }

// sameDir reports whether two slash-separated paths are in one directory.
func sameDir(a, b string) bool {
	i, j := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
	return i == j && a[:max(i, 0)] == b[:max(j, 0)]
}

// ModuleFiles lists the files of a language that an import path (a Python
// module, a JavaScript specifier) names, seen from the file from: what
// completion lists after the module's name and a dot.
func ModuleFiles(ws Workspace, from, lang, importPath string) []string {
	var out []string
	for _, p := range ws.Files() {
		if p != from && moduleMatches(from, p, importPath) {
			if f := ws.File(p); f != nil && f.Lang == lang {
				out = append(out, p)
			}
		}
	}
	return out
}
