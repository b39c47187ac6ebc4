package complete

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Go types as written in declarations, resolved far enough to tell
// whether a member's value is of the type the cursor expects: a named
// type by its name and package folder, a predeclared one by its name.

// goType is a written Go type, read from the file that writes it.
type goType struct {
	name    string   // the base type's name: "string", "FlagSet"
	dirs    []string // folders of the named type's package; nil for a predeclared type
	path    string   // its import path when the folders are unknown
	elem    bool     // a slice, array or map of it: gopls matches its element (x[i])
	untyped string   // an untyped constant's kind instead of a type
	under   string   // a defined type's underlying constant kind (type Kind uint: "int"), when known
}

// basicKinds are the predeclared types by the kind of constant they take.
var basicKinds = map[string]string{
	"string": "string", "bool": "bool", "rune": "int", "byte": "int", "uintptr": "int",
	"int": "int", "int8": "int", "int16": "int", "int32": "int", "int64": "int",
	"uint": "int", "uint8": "int", "uint16": "int", "uint32": "int", "uint64": "int",
	"float32": "float", "float64": "float", "complex64": "float", "complex128": "float",
}

// readGoType reads written, a type written in file path; imports says
// what its qualifiers name (read lazily: most types need none).
func (c *collector) readGoType(path, written string, imports func() []analysis.Import) (goType, bool) {
	t := goType{}
	w := strings.TrimSpace(written)
	for {
		switch {
		case strings.HasPrefix(w, "*"):
			w = w[1:] // gopls dereferences a pointer to match its element
			continue
		case strings.HasPrefix(w, "[]"), strings.HasPrefix(w, "..."):
			t.elem = t.elem || strings.HasPrefix(w, "[]")
			w = strings.TrimLeft(w, "[].")
			continue
		case strings.HasPrefix(w, "map["):
			w = w[closeOf(w, 3)+1:]
			t.elem = true
			continue
		}
		break
	}
	if i := strings.IndexByte(w, '['); i > 0 {
		w = w[:i] // type arguments
	}
	if w == "" || !isGoName(strings.ReplaceAll(w, ".", "")) {
		return t, false // a func, struct, interface or channel type: not compared
	}
	qual, name, qualified := strings.Cut(w, ".")
	if !qualified {
		t.name = qual
		if resolve.GoPredeclared(qual) {
			return t, true
		}
		t.dirs = []string{filepath.Dir(path)}
		return t, true
	}
	t.name = name
	for _, imp := range imports() {
		if resolve.GoImportName(imp) == qual {
			t.path = imp.Path
			if dirs, mapped := goPackageDirs(c.s, imp.Path); mapped {
				t.dirs = dirs
			}
			return t, true
		}
	}
	return t, false
}

// sameNamed reports whether a and b, both named or predeclared, are the
// same type.
func sameNamed(a, b goType) bool {
	if a.name != b.name || (a.dirs == nil && a.path == "") != (b.dirs == nil && b.path == "") {
		return false
	}
	if a.dirs == nil && a.path == "" {
		return true // predeclared
	}
	for _, d := range a.dirs {
		if slices.Contains(b.dirs, d) || b.path != "" && strings.HasSuffix(filepath.ToSlash(d), "/"+b.path) {
			return true
		}
	}
	for _, d := range b.dirs {
		if a.path != "" && strings.HasSuffix(filepath.ToSlash(d), "/"+a.path) {
			return true
		}
	}
	return a.path != "" && a.path == b.path
}

// goTypeMatch is how a value of type have fits where want is expected,
// as gopls scores it: 0 when it does not; else the factor to multiply the
// match's bonus by (an untyped constant of another type, an element of a
// slice).
func goTypeMatch(want, have goType) float64 {
	if want.elem {
		return 0 // a slice is expected: its element types are not compared
	}
	factor := 1.0
	if have.elem {
		factor = 0.9 // gopls offers x[] for an element of the expected type
	}
	if have.untyped != "" {
		kind := basicKinds[want.name]
		if want.dirs != nil || want.path != "" {
			kind = want.under
		}
		if kind == "" || kind != have.untyped && !(have.untyped == "int" && kind == "float") {
			return 0
		}
		return factor * 0.75 // gopls ranks an untyped constant below a typed value
	}
	if !sameNamed(want, have) {
		return 0
	}
	return factor
}
