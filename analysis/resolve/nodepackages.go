package resolve

import (
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// NodePackages is what a workspace knows of its installed node packages.
type NodePackages interface {
	// NodeModuleFiles lists the files an import of specifier ("pkg",
	// "@scope/pkg/sub") names by the package's entry points, best first;
	// ok is false when no installed package serves it.
	NodeModuleFiles(specifier string) (files []string, ok bool)
}

// nodeImported finds name among the top-level declarations of the entry
// files of the package an import names, following their re-exports; ok is
// false when the workspace does not know the package (resolution then
// matches the import path against file paths).
func (r *Resolver) nodeImported(f *analysis.FileFacts, name, specifier string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	np, ok := r.ws.(NodePackages)
	if !ok || f.Lang != "typescript" && f.Lang != "javascript" {
		return nil, false
	}
	files, ok := np.NodeModuleFiles(specifier)
	if !ok {
		return nil, false
	}
	return r.declaredAtTopOf(files, name, role, conf, depth), true
}

// nodeImportedName is nodeImported for the name an import statement
// brings in: a default import binds what the package exports as itself
// when nothing is declared under its local name.
func (r *Resolver) nodeImportedName(f *analysis.FileFacts, name, specifier string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	out, ok := r.nodeImported(f, name, specifier, role, conf, depth)
	if !ok || len(out) > 0 || depth > 0 {
		return out, ok
	}
	if files, _ := r.ws.(NodePackages).NodeModuleFiles(specifier); len(files) > 0 {
		return r.defaultExported(files, role, conf), true
	}
	return nil, true
}

// defaultExported are the declarations that the first of files, best
// first, exports as the module itself (`export = e`, `export default e`):
// what a default import binds when nothing is declared under its local
// name.
func (r *Resolver) defaultExported(files []string, role analysis.Role, conf float64) []Candidate {
	var out []Candidate
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for i, d := range g.Defs {
			if d.Visibility == "default" && d.Container == analysis.None {
				out = r.add(out, p, int32(i), conf, ViaImport, role)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// declaredAtTopOf finds name among the top-level declarations (methods
// bound to a receiver aside) of the first of files, best first, that
// declares it, else through their re-exports: how a package's or a
// crate's entry files answer an import.
func (r *Resolver) declaredAtTopOf(files []string, name string, role analysis.Role, conf float64, depth int) []Candidate {
	return r.topDeclared(files, name, role, conf, depth, false)
}

// declaredLocally is declaredAtTopOf for the local name an export clause
// exports under another (`export { z4 as default }`): a namespace import's
// binding counts, which is no export of its own.
func (r *Resolver) declaredLocally(files []string, name string, role analysis.Role, conf float64, depth int) []Candidate {
	return r.topDeclared(files, name, role, conf, depth, true)
}

func (r *Resolver) topDeclared(files []string, name string, role analysis.Role, conf float64, depth int, bindings bool) []Candidate {
	var out []Candidate
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for i, d := range g.Defs {
			// A property of an inline object type is contained by nothing
			// but is no export (zod's `coerce: { string: … }`).
			// Nor is a namespace import's binding (`import * as parse` in
			// zod's mini/schemas.ts), unless an export clause names it.
			binding := d.Kind == analysis.KindModule && d.Visibility == "private" && ecmaLang(g.Lang)
			if d.Name == name && d.Container == analysis.None && d.Receiver == "" && (d.Scope == 0 || !ecmaLang(g.Lang)) && (bindings || !binding) {
				out = r.add(out, p, int32(i), conf, ViaImport, role)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return r.reexportedIn(files, name, role, conf, depth+1)
}

// passedOnFrom finds name where `export * from "m"` or `export {
// name } from "m"` in file p (g) passes it on from: a relative module's files and their own re-exports,
// as TypeScript follows them (nothing more when they exist), else what an
// import of m would find.
func (r *Resolver) passedOnFrom(g *analysis.FileFacts, p, module, name string, role analysis.Role, conf float64, depth int) []Candidate {
	if ecmaLang(g.Lang) && strings.HasPrefix(module, ".") {
		files := r.relativeModuleFilesOf(p, module)
		if slices.ContainsFunc(files, func(f string) bool { return r.file(f) != nil }) {
			// reexportedIn counted the hop: zod's entry passes names on
			// through five files.
			return r.declaredAtTopOf(files, name, role, conf, depth)
		}
	}
	return r.importedFrom(g, name, module, role, conf, depth)
}

// ambientImported finds name among the declarations of the ambient module
// a specifier names, `declare module "fs" { … }` (how @types/node declares
// Node's modules, "node:fs" included): where TypeScript looks when no
// installed package serves the specifier.
func (r *Resolver) ambientImported(lang, name, specifier string, role analysis.Role, conf float64) []Candidate {
	return r.ambientImportedIn(lang, name, specifier, role, conf, 0)
}

func (r *Resolver) ambientImportedIn(lang, name, specifier string, role analysis.Role, conf float64, depth int) []Candidate {
	if !ecmaLang(lang) || strings.HasPrefix(specifier, ".") || strings.HasPrefix(specifier, "/") || depth > 2 {
		return nil
	}
	specs := []string{specifier}
	if bare, ok := strings.CutPrefix(specifier, "node:"); ok {
		specs = append(specs, bare) // "node:fs" re-exports "fs"
	}
	for _, spec := range specs {
		var out []Candidate
		for _, quoted := range []string{`"` + spec + `"`, `'` + spec + `'`} {
			for _, e := range r.defs(quoted) {
				if e.Kind != analysis.KindModule || !ecmaLang(e.Lang) {
					continue
				}
				g := r.file(e.Path)
				if g == nil {
					continue
				}
				for _, i := range r.named(g, name) {
					if g.Defs[i].Container == e.Index {
						out = r.add(out, e.Path, i, conf, ViaImport, role)
					}
				}
				if len(out) == 0 && g.Defs[e.Index].TypeName != "" {
					out = r.exportAssigned(g, e.DefID, name, role, conf, depth)
				}
				if len(out) == 0 {
					out = r.ambientPassedOn(g, e.DefID, name, role, conf, depth)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// ambientPassedOn finds name where ambient module m of g passes every name
// of another module on, `declare module "http" { export * from "node:http" }`.
func (r *Resolver) ambientPassedOn(g *analysis.FileFacts, m DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	body := g.Defs[m.Index].FullSpan
	for _, imp := range g.Imports {
		if imp.Wildcard && imp.Path != "" && body.Contains(imp.Span.Start) {
			if out := r.ambientImportedIn(g.Lang, name, imp.Path, role, conf, depth+1); len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// exportAssigned finds name in the ambient module m of g that declares
// nothing by that name but says `export = X`: in the module that X binds
// with `import X = require("n")` (@types/node's "events" is
// "node:events"), else X itself, what a default import binds.
func (r *Resolver) exportAssigned(g *analysis.FileFacts, m DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	target := g.Defs[m.Index].TypeName
	body := g.Defs[m.Index].FullSpan
	for _, imp := range g.Imports {
		if imp.Alias == target && imp.Name == "" && imp.Path != "" && body.Contains(imp.Span.Start) {
			return r.ambientImportedIn(g.Lang, name, imp.Path, role, conf, depth+1)
		}
	}
	if out := r.exportedNamespaceMember(g, m, target, name, role, conf); len(out) > 0 {
		return out
	}
	var out []Candidate
	for _, i := range r.named(g, target) {
		// Or a global the module's `global { var process: … }` block
		// declares: @types/node's "node:process" exports it so.
		if d := g.Defs[i]; d.Container == m.Index || d.Container == analysis.None && body.Contains(d.NameSpan.Start) {
			out = r.add(out, m.Path, i, conf, ViaImport, role)
		}
	}
	return out
}

// exportedNamespaceMember finds name among the members of the namespaces
// named target that module m of g declares and exports as itself
// (`namespace Stream { class Writable … } export = Stream`): what
// `stream.Writable` names after `import * as stream from "node:stream"`.
func (r *Resolver) exportedNamespaceMember(g *analysis.FileFacts, m DefID, target, name string, role analysis.Role, conf float64) []Candidate {
	if name == target {
		return nil
	}
	var out []Candidate
	for _, ns := range r.named(g, target) {
		if d := g.Defs[ns]; d.Kind != analysis.KindModule || d.Container != m.Index {
			continue
		}
		for _, i := range r.named(g, name) {
			if g.Defs[i].Container == ns {
				out = r.add(out, m.Path, i, conf, ViaImport, role)
			}
		}
	}
	return out
}

// NamespaceMembers are the declarations a TypeScript or JavaScript
// namespace import `import * as ns from "m"` binds ns to, when alias is
// such a binding of file: the top-level declarations of the installed
// package's first entry file, else those of the ambient module
// `declare module "m"`.
func (r *Resolver) NamespaceMembers(file, alias string) []DefID {
	f := r.file(file)
	if f == nil || !ecmaLang(f.Lang) {
		return nil
	}
	for _, imp := range f.Imports {
		if imp.Alias != alias || imp.Name != "" || imp.Wildcard {
			continue
		}
		var out []DefID
		if np, ok := r.ws.(NodePackages); ok {
			if files, ok := np.NodeModuleFiles(imp.Path); ok && len(files) > 0 {
				if g := r.file(files[0]); g != nil {
					for i, d := range g.Defs {
						if d.Container == analysis.None && d.Receiver == "" && d.Visibility == "public" {
							out = append(out, DefID{files[0], int32(i)})
						}
					}
				}
				return out
			}
		}
		spec := strings.TrimPrefix(imp.Path, "node:")
		for _, quoted := range []string{`"` + spec + `"`, `'` + spec + `'`} {
			for _, e := range r.defs(quoted) {
				g := r.file(e.Path)
				if e.Kind != analysis.KindModule || !ecmaLang(e.Lang) || g == nil {
					continue
				}
				for i, d := range g.Defs {
					if d.Container == e.Index && d.Kind != analysis.KindParameter {
						out = append(out, DefID{e.Path, int32(i)})
					}
				}
			}
		}
		return out
	}
	return nil
}

// namespaceImportOf is the module that def t binds when it is the binding
// of a namespace import `import * as ns from "m"` (zod's entry file
// exports its `z` so), and ok.
func (r *Resolver) namespaceImportOf(t DefID) (g *analysis.FileFacts, module string, ok bool) {
	g, d, found := r.entry(t)
	if !found || d.Kind != analysis.KindModule || !ecmaLang(g.Lang) {
		return nil, "", false
	}
	for _, imp := range g.Imports {
		// The import that declares the binding: @types/node's
		// "node:process" declares a namespace `process` of its own beside
		// "process"'s `import process = require("node:process")`.
		if imp.Alias == d.Name && imp.Name == "" && !imp.Wildcard && imp.Path != "" && imp.Span.Contains(d.NameSpan.Start) {
			return g, imp.Path, true
		}
	}
	return nil, "", false
}

// namespaceBindingMember finds name in the module that namespace binding t
// binds, as an import of the binding's file would; ok is false when t is
// no such binding.
func (r *Resolver) namespaceBindingMember(t DefID, name string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	g, module, ok := r.namespaceImportOf(t)
	if !ok || depth > maxDepth {
		return nil, false
	}
	// The module's files and what they re-export, as TypeScript follows
	// them; else the guesses an import of the module makes.
	if out := r.declaredAtTopOf(r.ecmaModuleFiles(g.Path, module), name, role, conf, depth); len(out) > 0 {
		return out, true
	}
	out := r.importedFrom(g, name, module, role, conf, depth)
	// A property of an inline object type is no export, though nothing
	// contains it: zod's `ZodParsedType: { string: "string" }`.
	top := slices.DeleteFunc(slices.Clone(out), func(c Candidate) bool {
		_, d, ok := r.entry(c.Def)
		return !ok || d.Scope != 0
	})
	if len(top) > 0 {
		return top, true
	}
	return out, true
}

// Export is a name a module exports and the declaration it names.
type Export struct {
	Name string
	Def  DefID
}

// NamespaceExports are the names the module that namespace binding t binds
// exports (zod's `z`): its files' exported declarations, their local
// export aliases and, through `export * from`, the modules they re-export;
// none when t is no such binding.
func (r *Resolver) NamespaceExports(t DefID) []Export {
	g, module, ok := r.namespaceImportOf(t)
	if !ok {
		return nil
	}
	var out []Export
	seen := map[string]bool{}
	r.moduleExports(r.ecmaModuleFiles(g.Path, module), 0, seen, &out)
	return out
}

func (r *Resolver) moduleExports(files []string, depth int, seen map[string]bool, out *[]Export) {
	if depth > maxDepth {
		return
	}
	for _, p := range files {
		g := r.file(p)
		if g == nil || seen[p] {
			continue
		}
		seen[p] = true
		for i, d := range g.Defs {
			if d.Container == analysis.None && d.Receiver == "" && (d.Visibility == "public" || d.Visibility == "default") {
				*out = append(*out, Export{d.Name, DefID{p, int32(i)}})
			}
		}
		for _, imp := range g.Imports {
			switch {
			case imp.Path == "" && imp.Alias != "":
				for _, c := range best(r.declaredLocally([]string{p}, imp.Name, analysis.RoleRead, confImport, depth+1)) {
					*out = append(*out, Export{imp.Alias, c.Def})
				}
			case imp.Name != "" && imp.Alias == imp.Name:
				// `export { NEVER } from "../core/index.js"`
				for _, c := range best(r.passedOnFrom(g, p, importModule(imp), imp.Name, analysis.RoleRead, confImport, depth+1)) {
					*out = append(*out, Export{imp.Alias, c.Def})
				}
			case imp.Wildcard:
				r.moduleExports(r.ecmaModuleFiles(p, imp.Path), depth+1, seen, out)
			}
		}
		return // the first entry file that exists
	}
}

// ecmaModuleFiles are the files a TypeScript module specifier in file from
// may name, best first: a node package's entry files, or a relative
// path's source or declaration files.
func (r *Resolver) ecmaModuleFiles(from, module string) []string {
	if !strings.HasPrefix(module, ".") {
		if np, ok := r.ws.(NodePackages); ok {
			files, _ := np.NodeModuleFiles(module)
			return files
		}
		return nil
	}
	return r.relativeModuleFilesOf(from, module)
}

// relativeModuleFilesOf is relativeModuleFiles, remembered: the re-export
// chains of a TypeScript project ask for the same specifiers from the same
// folders at every hop (a fifth of zod's reference pass built them anew).
// The list is shared: callers must not change it.
func (r *Resolver) relativeModuleFilesOf(from, module string) []string {
	ext := path.Ext(from)
	if strings.HasSuffix(strings.TrimSuffix(from, ext), ".d") {
		ext = ".d" + ext
	}
	key := path.Dir(from) + "\x00" + ext + "\x00" + module
	return memo(&r.mu, r.relModules, key, func(string) []string { return slices.Clip(relativeModuleFiles(from, module)) })
}

// relativeModuleFiles are the files a relative specifier in an ECMAScript
// file from may name, best first: the path as written, with from's
// extension, the TypeScript source a JavaScript extension stands for
// ("./util.js" is util.ts, "./a.mjs" a.mts: TypeScript names the file it
// will emit), declaration files, and index files of a folder.
func relativeModuleFiles(from, module string) []string {
	base, ext := path.Join(path.Dir(from), module), path.Ext(from)
	if strings.HasSuffix(from, ".d.ts") || strings.HasSuffix(from, ".d.mts") || strings.HasSuffix(from, ".d.cts") {
		ext = ".d" + ext
	}
	out := []string{base, base + ext, base + "/index" + ext}
	stem := base
	switch path.Ext(base) {
	case ".js", ".jsx":
		stem = stripExt(base)
		out = append(out, stem+".ts", stem+".tsx", stem+".d.ts")
	case ".mjs":
		stem = stripExt(base)
		out = append(out, stem+".mts", stem+".d.mts")
	case ".cjs":
		stem = stripExt(base)
		out = append(out, stem+".cts", stem+".d.cts")
	}
	// A declaration file often names the JavaScript it describes by a
	// different extension ("./types.cjs" for types.d.cts).
	out = append(out, stem+".d.ts", stem+".d.mts", stem+".d.cts", stem+".ts", stem+".tsx",
		base+".d.ts", base+".ts", base+".tsx", base+".js", base+"/index.d.ts", base+"/index.ts", base+"/index.js")
	return dedupStrings(out)
}

// dedupStrings drops the later repeats of a list, keeping its order.
func dedupStrings(list []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(list, func(s string) bool {
		if seen[s] {
			return true
		}
		seen[s] = true
		return false
	})
}
