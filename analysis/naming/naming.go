// Package naming holds how kast names declarations for every protocol and
// tool: fully qualified names, the module a file's top-level names live in,
// visibility, and the Kast vocabularies of kinds, usage facets, source sets
// and modules. One rule each, so that two answers about the same
// declaration never spell it two ways.
package naming

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Contained is a declaration's name prefixed by its containers,
// "Outer.Inner.name", without the file's qualifier.
func Contained(f *analysis.FileFacts, i int32) string {
	var parts []string
	for ; i != analysis.None && int(i) < len(f.Defs); i = f.Defs[i].Container {
		parts = append(parts, f.Defs[i].Name)
	}
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// FQName is a declaration's fully qualified name, "pkg.Outer.Inner.name":
// its contained name under the file's Qualifier, when it has one. An
// overloaded Kotlin or Java function or constructor is followed by its
// Overload shape, "pkg.Router.route(String)": each overload is a symbol
// of its own.
func FQName(root string, f *analysis.FileFacts, i int32) string {
	name := Contained(f, i) + Overload(f, i)
	if q := Qualifier(root, f); q != "" {
		return q + "." + name
	}
	return name
}

// Overload is what sets an overloaded Kotlin or Java function or
// constructor apart from the others of its name in its container: its
// parameter types, "(String,Int...)". "" when the declaration has no
// overload in its file, or its signature does not show its parameters.
// The receiver of an extension is left out: it reads as a container.
func Overload(f *analysis.FileFacts, i int32) string {
	if f.Lang != "kotlin" && f.Lang != "java" || i < 0 || int(i) >= len(f.Defs) {
		return ""
	}
	d := f.Defs[i]
	if !callable(d.Kind) || !overloaded(f, i) {
		return ""
	}
	return ParamShape(d)
}

// ParamShape is a function's or constructor's parameter types as its
// fqName writes them, "(String,Int...)", without an extension's receiver;
// "" when its signature does not show them.
func ParamShape(d analysis.Def) string {
	shape := resolve.OverloadShape(d)
	if d.Receiver != "" {
		if open := strings.Index(shape, ".("); open >= 0 {
			shape = shape[open+1:]
		}
	}
	return shape
}

func callable(k analysis.Kind) bool {
	return k == analysis.KindFunction || k == analysis.KindMethod || k == analysis.KindConstructor
}

// overloaded reports whether another callable of the same container in f
// shares d's name.
func overloaded(f *analysis.FileFacts, i int32) bool {
	d := f.Defs[i]
	for j, o := range f.Defs {
		if int32(j) != i && o.Name == d.Name && o.Container == d.Container && callable(o.Kind) {
			return true
		}
	}
	return false
}

// Container is the fully qualified name of the declaration enclosing i, or
// the file's qualifier at top level.
func Container(root string, f *analysis.FileFacts, i int32) string {
	if c := f.Defs[i].Container; c != analysis.None {
		return FQName(root, f, c)
	}
	return Qualifier(root, f)
}

// Qualifier is what qualifies a file's top-level names: its package where
// the language declares one (Kotlin, Java, Go), otherwise, for languages
// whose module is the file, the module's name taken from its path under
// root (see PythonModule and ModuleSpecifier). "" when none applies or the
// file is not under root.
func Qualifier(root string, f *analysis.FileFacts) string {
	if f.Package != "" {
		return f.Package
	}
	rel, ok := relative(root, f.Path)
	if !ok {
		return ""
	}
	switch f.Lang {
	case "python":
		return PythonModule(rel)
	case "typescript", "tsx", "javascript":
		return ModuleSpecifier(rel)
	}
	return ""
}

// PythonModule is the dotted module name of a root-relative slash path:
// "pkg/mod.py" → "pkg.mod", "pkg/__init__.py" → "pkg". A leading src/
// folder is dropped: in the src layout it is where the import path starts,
// and no import names it. Completion's import edits and Kast's qualified
// names both follow this one rule ("" for the root's own __init__.py).
func PythonModule(rel string) string {
	stem := strings.TrimSuffix(rel, path.Ext(rel))
	stem = strings.TrimSuffix(strings.TrimPrefix(stem, "src/"), "__init__")
	stem = strings.TrimSuffix(stem, "/")
	return strings.ReplaceAll(stem, "/", ".")
}

// ModuleSpecifier is the path an import specifier would use for a
// TypeScript or JavaScript file, root-relative: no extension, no trailing
// /index ("" for the root's index file).
func ModuleSpecifier(rel string) string {
	stem := strings.TrimSuffix(rel, path.Ext(rel))
	if stem == "index" {
		return ""
	}
	return strings.TrimSuffix(stem, "/index")
}

// relative is p under root as a slash path; false when p is outside root.
func relative(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Visibility is a declaration's visibility in Kast's enum: PUBLIC,
// INTERNAL, PROTECTED, PRIVATE, or LOCAL for what a function body or
// initializer declares; Kotlin's default is PUBLIC. "" when the language
// does not say.
func Visibility(f *analysis.FileFacts, i int32) string {
	d := f.Defs[i]
	if c := d.Container; c != analysis.None && !f.Defs[c].Kind.IsType() {
		return "LOCAL"
	}
	switch v := strings.ToUpper(d.Visibility); v {
	case "PUBLIC", "INTERNAL", "PROTECTED", "PRIVATE":
		return v
	case "":
		if f.Lang == "kotlin" {
			return "PUBLIC"
		}
	}
	return ""
}

// EffectiveVisibility is Visibility, with PUBLIC where the language does
// not say: what Kast's index records for such declarations.
func EffectiveVisibility(f *analysis.FileFacts, i int32) string {
	if v := Visibility(f, i); v != "" {
		return v
	}
	return "PUBLIC"
}

// UsageFacets are Kast's computed facets of a declaration, from its
// visibility and its path: PUBLIC_API, INTERNAL_API or MODULE_PRIVATE, and
// BUILD_LOGIC for Gradle scripts and buildSrc.
func UsageFacets(visibility, path string) []string {
	facets := []string{}
	switch visibility {
	case "PUBLIC", "PROTECTED":
		facets = append(facets, "PUBLIC_API")
	case "INTERNAL":
		facets = append(facets, "INTERNAL_API")
	case "PRIVATE", "LOCAL":
		facets = append(facets, "MODULE_PRIVATE")
	}
	if strings.HasSuffix(path, ".gradle.kts") || strings.Contains(filepath.ToSlash(path), "/buildSrc/") {
		facets = append(facets, "BUILD_LOGIC")
	}
	return facets
}

// SourceSet is the Gradle-style source set a path is in ("main" for
// .../src/main/...), or "".
func SourceSet(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := 0; i+1 < len(parts)-1; i++ {
		if parts[i] == "src" {
			return parts[i+1]
		}
	}
	return ""
}

// Module is the module a file belongs to, for measuring coupling: for now
// the directory holding it, relative to root as a slash path ("." for the
// root itself) — a Go package, a source folder. "" when the file is not
// under root.
func Module(root, file string) string {
	rel, ok := relative(root, filepath.Dir(file))
	if !ok {
		return ""
	}
	return rel
}

// RootModule is the one module name Kast reports for a workspace root (its
// folder's name): kast does not read build files for modules.
func RootModule(root string) string { return filepath.Base(root) }
