package resolve

import (
	"cmp"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Rust paths into library crates: `use serde::de::Deserialize` and
// `serde::de::from_str(...)` name the crate serde's module de, the file
// src/de.rs or src/de/mod.rs of the crate's folder, which the workspace
// maps the crate's name to. Inside a library crate, `crate::`, `self::`,
// `super::` and a submodule's name are paths within that crate.

// RustCrates is what a workspace knows of its library crates.
type RustCrates interface {
	// RustCrateFiles lists the files of the module path modules of the
	// crate Rust code names crate (dashes as underscores), best first;
	// ok is false when no library crate has the name.
	RustCrateFiles(crate string, modules []string) (files []string, ok bool)
}

// RustModules says which library crate module a file is.
type RustModules interface {
	// RustModuleOf names the library crate and module path of a file
	// of a library crate; ok is false for any other file.
	RustModuleOf(path string) (crate string, modules []string, ok bool)
}

// rustImported finds name among the top-level declarations of the module
// of a library crate that the path pkg names, following the module's
// re-exports (`pub use de::Deserialize` in lib.rs); ok is false when pkg
// does not start with a library crate's name.
func (r *Resolver) rustImported(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	files, ok := r.rustModuleFiles(f, pkg)
	if !ok {
		// `use a::b::C` of the workspace's own inline modules.
		var out []Candidate
		if f.Lang == "rust" && strings.Contains(pkg, "::") && depth <= maxDepth {
			at := analysis.Ref{Name: name, Role: role, Scope: 0, Enclosing: analysis.None}
			for _, m := range r.rustPathModules(f, at, pkg, depth) {
				out = append(out, r.members(m.Def, name, role, conf, depth+1)...)
			}
		}
		return out, len(out) > 0
	}
	if !r.anyFile(files) {
		if mod, ok := r.rustInlineModule(f, pkg); ok {
			return r.declaredInModule(mod, name, role, conf), true
		}
	}
	out := r.declaredAtTopOf(files, name, role, conf, depth)
	if len(out) == 0 && len(files) > 0 {
		if crate, mods, ok := r.rustModuleOf(files[0]); ok && len(mods) == 0 {
			out = r.exportedMacros(crate, name, role, conf)
		}
	}
	return out, true
}

// rustInlineModule finds the module a path names when no file is that
// module: one declared inline, `pub mod inner { … }`, in the file of the
// longest prefix of the path that is a file, or nested in such modules.
func (r *Resolver) rustInlineModule(f *analysis.FileFacts, pkg string) (DefID, bool) {
	segs := strings.Split(strings.TrimPrefix(pkg, "::"), "::")
	for i := len(segs) - 1; i >= 1; i-- {
		files, ok := r.rustModuleFiles(f, strings.Join(segs[:i], "::"))
		if !ok {
			return DefID{}, false
		}
		for _, p := range files {
			if g := r.file(p); g != nil {
				return nestedModule(g, segs[i:])
			}
		}
	}
	return DefID{}, false
}

// rustPathModules resolves a path of modules or types written in f at
// ref (`a::b`) to the declarations it names, the last segment within what
// the rest names: inline modules nested in one another.
func (r *Resolver) rustPathModules(f *analysis.FileFacts, ref analysis.Ref, path string, depth int) []Candidate {
	qref := ref
	qref.Role, qref.Args = analysis.RoleRead, ""
	qref.Qualifier, qref.Name = "", path
	if i := strings.LastIndex(path, "::"); i >= 0 {
		qref.Qualifier, qref.Name = path[:i], path[i+2:]
	}
	if qref.Name == "" || strings.ContainsAny(qref.Name, "<>(){}") {
		return nil
	}
	var out []Candidate
	for _, c := range best(r.resolve(f, qref, depth+1)) {
		if d := r.file(c.Def.Path).Defs[c.Def.Index]; d.Kind.IsType() || d.Kind == analysis.KindModule {
			out = append(out, c)
		}
	}
	return out
}

// nestedModule follows inline module declarations named names from the
// top of file g.
func nestedModule(g *analysis.FileFacts, names []string) (DefID, bool) {
	cur := analysis.None
	for _, name := range names {
		found := analysis.None
		for i, d := range g.Defs {
			if d.Kind == analysis.KindModule && d.Name == name && d.Container == cur {
				found = int32(i)
				break
			}
		}
		if found == analysis.None {
			return DefID{}, false
		}
		cur = found
	}
	return DefID{g.Path, cur}, true
}

// declaredInModule finds name among the items of an inline module.
func (r *Resolver) declaredInModule(mod DefID, name string, role analysis.Role, conf float64) []Candidate {
	g := r.file(mod.Path)
	var out []Candidate
	for i, d := range g.Defs {
		if d.Name == name && d.Container == mod.Index && d.Receiver == "" {
			out = r.add(out, mod.Path, int32(i), conf, ViaImport, role)
		}
	}
	return out
}

// exportedMacros finds the `#[macro_export] macro_rules! name` of a
// library crate: exported, a macro is an item of the crate's root
// whichever module defines it (`log::info!`, `use log::info`).
func (r *Resolver) exportedMacros(crate, name string, role analysis.Role, conf float64) []Candidate {
	var out []Candidate
	for _, e := range r.defs(name) {
		if e.Lang != "rust" || e.Kind != analysis.KindFunction {
			continue
		}
		g := r.file(e.Path)
		if g == nil || !strings.HasPrefix(g.Defs[e.Index].Signature, "#[macro_export] macro_rules!") {
			continue
		}
		if c, _, ok := r.rustModuleOf(e.Path); ok && c == crate {
			out = r.add(out, e.Path, e.Index, conf, ViaImport, role)
		}
	}
	return out
}

// rustMacroUse finds a plain macro call's macro among the exported macros
// of the crates that the root of f's crate brings in with `#[macro_use]
// extern crate x;`.
func (r *Resolver) rustMacroUse(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Lang != "rust" || ref.Role&analysis.RoleCall == 0 {
		return nil
	}
	var out []Candidate
	for _, root := range r.rustCrateRoots(f) {
		g := r.file(root)
		if g == nil {
			continue
		}
		for _, imp := range g.Imports {
			if imp.Alias == analysis.RustMacroUse {
				out = append(out, r.exportedMacros(imp.Path, ref.Name, ref.Role, confWildcard)...)
			}
		}
	}
	return out
}

// rustCrateRoots lists the root files of the crate f belongs to: a library
// crate's as its manifest says, else f itself and the lib.rs and main.rs
// of the src folder f is under.
func (r *Resolver) rustCrateRoots(f *analysis.FileFacts) []string {
	if crate, _, ok := r.rustModuleOf(f.Path); ok {
		if rc, ok := r.ws.(RustCrates); ok {
			roots, _ := rc.RustCrateFiles(crate, nil)
			return roots
		}
		return nil
	}
	roots := []string{f.Path}
	for dir := path.Dir(f.Path); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if path.Base(dir) == "src" {
			for _, root := range []string{dir + "/lib.rs", dir + "/main.rs"} {
				if root != f.Path && r.file(root) != nil {
					roots = append(roots, root)
				}
			}
			break
		}
	}
	return roots
}

// rustModuleFiles lists the files of the library crate module a path
// names from file f: a path starting with a library crate's name, or one
// relative to the library crate module f is.
func (r *Resolver) rustModuleFiles(f *analysis.FileFacts, pkg string) ([]string, bool) {
	rc, ok := r.ws.(RustCrates)
	if !ok || f.Lang != "rust" || pkg == "" {
		return nil, false
	}
	segs := strings.Split(strings.TrimPrefix(pkg, "::"), "::")
	crate, here, inCrate := r.rustModuleOf(f.Path)
	switch segs[0] {
	case "Self":
		return nil, false
	case "crate", "self", "super":
		if !inCrate {
			return nil, false
		}
		mods, ok := relativeModules(here, segs)
		if !ok {
			return nil, false
		}
		return rc.RustCrateFiles(crate, mods)
	}
	if inCrate {
		// A submodule's name shadows a crate's (2018 uniform paths).
		if files, ok := rc.RustCrateFiles(crate, append(slices.Clone(here), segs...)); ok && r.anyFile(files) {
			return files, true
		}
	}
	return rc.RustCrateFiles(segs[0], segs[1:])
}

func (r *Resolver) rustModuleOf(path string) (string, []string, bool) {
	if rm, ok := r.ws.(RustModules); ok {
		return rm.RustModuleOf(path)
	}
	return "", nil, false
}

// relativeModules turns a crate-relative path (crate::a, self::a,
// super::super::a) in module here into a module path from the crate root.
func relativeModules(here, segs []string) ([]string, bool) {
	switch segs[0] {
	case "crate":
		return segs[1:], true
	case "self":
		return append(slices.Clone(here), segs[1:]...), true
	}
	mods := slices.Clone(here)
	for len(segs) > 0 && segs[0] == "super" {
		if len(mods) == 0 {
			return nil, false
		}
		mods, segs = mods[:len(mods)-1], segs[1:]
	}
	return append(mods, segs...), true
}

func (r *Resolver) anyFile(files []string) bool {
	return slices.ContainsFunc(files, func(p string) bool { return r.file(p) != nil })
}

// rustInCrate resolves a qualified Rust path whose qualifier starts with a
// library crate, or with a name a `use` binds to a path into one
// (`use serde::de; de::from_str`).
func (r *Resolver) rustInCrate(f *analysis.FileFacts, ref analysis.Ref) ([]Candidate, bool) {
	if f.Lang != "rust" || ref.Qualifier == "" {
		return nil, false
	}
	return r.rustImported(f, ref.Name, rustExpandUse(f, ref.Qualifier), ref.Role, confImport, 0)
}

// rustExpandUse replaces a path's first segment by the path a `use`
// binds it to.
func rustExpandUse(f *analysis.FileFacts, path string) string {
	head, rest, _ := strings.Cut(path, "::")
	for _, imp := range f.Imports {
		if !imp.Wildcard && cmp.Or(imp.Alias, imp.Name) == head {
			head = imp.Path
			break
		}
	}
	if rest != "" {
		head += "::" + rest
	}
	return head
}

// RustMember is a name a path into a library crate module offers after
// `::`, and what it names.
type RustMember struct {
	Name string
	Def  DefID
}

// maxRustMembers bounds the members listed for one module.
const maxRustMembers = 500

// RustPathMembers lists what can follow `path::` in file f when the path
// names a library crate module (`serde`, `serde::de`, or a name a `use`
// binds to one): the module's public items and public re-exports (a
// `pub use` of a module with `*` contributes that module's); ok is false
// when the path names no library crate module.
func (r *Resolver) RustPathMembers(f *analysis.FileFacts, path string) ([]RustMember, bool) {
	if f == nil || f.Lang != "rust" || path == "" {
		return nil, false
	}
	files, ok := r.rustModuleFiles(f, rustExpandUse(f, path))
	if !ok {
		return nil, false
	}
	var out []RustMember
	if !r.anyFile(files) {
		mod, ok := r.rustInlineModule(f, rustExpandUse(f, path))
		if !ok {
			return nil, false
		}
		g := r.file(mod.Path)
		for i, d := range g.Defs {
			if d.Container == mod.Index && d.Receiver == "" && d.Visibility == "pub" && len(out) < maxRustMembers {
				out = append(out, RustMember{d.Name, DefID{mod.Path, int32(i)}})
			}
		}
		return out, true
	}
	seen := map[string]bool{}
	r.rustPublic(files, seen, &out, 0)
	return out, true
}

func (r *Resolver) rustPublic(files []string, seen map[string]bool, out *[]RustMember, depth int) {
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for i, d := range g.Defs {
			if d.Container == analysis.None && d.Receiver == "" && d.Visibility == "pub" && !seen[d.Name] && len(*out) < maxRustMembers {
				seen[d.Name] = true
				*out = append(*out, RustMember{d.Name, DefID{p, int32(i)}})
			}
		}
		for _, imp := range g.Imports {
			if len(*out) >= maxRustMembers || !publicUse(p, imp.Span) {
				continue
			}
			if imp.Wildcard {
				if sub, ok := r.rustModuleFiles(g, imp.Path); ok && depth < maxDepth {
					r.rustPublic(sub, seen, out, depth+1)
				}
				continue
			}
			name := cmp.Or(imp.Alias, imp.Name)
			if seen[name] || name == "self" {
				continue
			}
			for _, c := range r.importedFrom(g, imp.Name, importModule(imp), analysis.RoleRead, confImport, depth+1) {
				seen[name] = true
				*out = append(*out, RustMember{name, c.Def})
				break
			}
		}
		return // the first file found is the module
	}
}

// publicUse reports whether the item at span of a library file, a `use`
// or `mod` declaration, is visible outside its crate: it starts with
// `pub` not followed by a restriction such as pub(crate). Library files
// are read from disk, never edited.
func publicUse(path string, span analysis.Span) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [5]byte
	n, _ := f.ReadAt(b[:], int64(span.Start))
	s := string(b[:n])
	return strings.HasPrefix(s, "pub") && len(s) > 3 && (s[3] == ' ' || s[3] == '\t' || s[3] == '\n')
}
