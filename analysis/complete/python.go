package complete

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Python members after "x." are listed the way Python users know them
// from pyright and Pylance: alphabetically (upper case first, as byte
// order has it), with __dunder__ names last (see pythonMemberCategory).

// pythonLiteralBefore is the literal a member access ending at start is
// made on, normalized for the resolver ("" for a string, b"" for bytes),
// or "".
func pythonLiteralBefore(text []byte, start int) string {
	if start < 2 || text[start-1] != '.' {
		return ""
	}
	switch q := text[start-2]; q {
	case '"', '\'':
		// The string's prefix letters: b"" is bytes, the rest str.
		i := start - 3
		for i >= 0 && text[i] != q && text[i] != '\n' {
			i--
		}
		for i > 0 && text[i-1] == q { // """…""" and '''…'''
			i--
		}
		j := i
		for j > 0 && strings.ContainsRune("bBrRuUfF", rune(text[j-1])) {
			j--
		}
		if strings.ContainsAny(string(text[max(j, 0):max(i, 0)]), "bB") {
			return `b""`
		}
		return `""`
	}
	return ""
}

// pythonMemberCategory sorts a member label as pyright does: with a typed
// prefix, dunder names after all others; before anything is typed, the
// type's own public names, its own private ones, inherited public, then
// inherited private names, dunders last.
func pythonMemberCategory(it Item, prefix string) int {
	label := it.Label
	dunder := len(label) > 4 && strings.HasPrefix(label, "__") && strings.HasSuffix(label, "__")
	switch {
	case dunder && prefix != "":
		return 1
	case dunder:
		return 4
	case prefix != "":
		return 0
	}
	category := 0
	if it.Rank != RankLocal { // inherited
		category = 2
	}
	if strings.HasPrefix(label, "_") {
		category++
	}
	return category
}

// sortPythonMembers orders the members collected after "x." and gives them
// one rank, so that the order is the list's.
func (c *collector) sortPythonMembers() {
	lower := strings.ToLower(c.prefix)
	slices.SortStableFunc(c.items, func(a, b Item) int {
		return cmp.Or(boolOrder(a.Label, b.Label, lower),
			cmp.Compare(pythonMemberCategory(a, c.prefix), pythonMemberCategory(b, c.prefix)), cmp.Compare(a.Label, b.Label))
	})
	for i := range c.items {
		c.items[i].Rank = RankMember
	}
}

// pythonObjectMembers adds the members every Python class inherits from
// object (__class__, __dict__, __eq__…), from the interpreter's builtins
// stub, unless object was visited already.
func (c *collector) pythonObjectMembers(visit func(resolve.DefID, int)) {
	for _, o := range c.s.Resolver().PythonBuiltin("object") {
		if g := c.s.File(o.Def.Path); g != nil && g.Defs[o.Def.Index].Kind == analysis.KindClass {
			visit(o.Def, 1)
			return
		}
	}
}

// pythonClassObjectMembers adds, after "C." where C names a class itself
// rather than an instance, the members of the class's class, type
// (__bases__, __name__, mro), as pyright lists them. start is where the
// member begins, after the dot.
func (c *collector) pythonClassObjectMembers(qualifier string, start int, visit func(resolve.DefID, int)) {
	if start < 2 || strings.ContainsAny(qualifier, "()[]{}'\"") {
		return
	}
	r := c.s.Resolver()
	found := r.DefinitionAt(c.f.Path, start-2) // the qualifier's last name
	if len(found) == 0 || found[0].Uncertain {
		return
	}
	g := c.s.File(found[0].Def.Path)
	if g == nil || g.Defs[found[0].Def.Index].Kind != analysis.KindClass && !c.classParameter(g, found[0].Def.Index) {
		return
	}
	for _, t := range r.PythonBuiltin("type") {
		if g := c.s.File(t.Def.Path); g != nil && g.Defs[t.Def.Index].Kind == analysis.KindClass {
			visit(t.Def, 1)
			return
		}
	}
}

// classParameter reports whether parameter i of this file is a class
// method's first, cls, which is bound to the class itself: of a method
// decorated @classmethod, or of __init_subclass__, __new__ or
// __class_getitem__.
func (c *collector) classParameter(g *analysis.FileFacts, i int32) bool {
	d := g.Defs[i]
	if g != c.f || d.Kind != analysis.KindParameter || d.Container == analysis.None {
		return false
	}
	fn := g.Defs[d.Container]
	if fn.Kind != analysis.KindMethod {
		return false
	}
	for _, p := range g.Defs {
		if p.Container == d.Container && p.Kind == analysis.KindParameter && p.NameSpan.Start < d.NameSpan.Start {
			return false // not the first parameter
		}
	}
	switch fn.Name {
	case "__init_subclass__", "__new__", "__class_getitem__":
		return true
	}
	// The decorator lines: above the def, or from the definition's start
	// (where that includes them) to its name.
	start := min(fn.FullSpan.Start, len(c.text))
	start = strings.LastIndexByte(string(c.text[:start]), '\n') + 1 // the line's start
	for start > 0 {
		prev := strings.LastIndexByte(string(c.text[:start-1]), '\n') + 1
		if !strings.HasPrefix(strings.TrimSpace(string(c.text[prev:start-1])), "@") {
			break
		}
		start = prev
	}
	for _, line := range strings.Split(string(c.text[start:max(start, min(fn.NameSpan.Start, len(c.text)))]), "\n") {
		if strings.TrimSpace(line) == "@classmethod" {
			return true
		}
	}
	return false
}

// pythonModuleMembers adds the attributes of the module the qualifier
// names, and reports whether it names one (click, os.path, an alias of either): what the module's file
// declares at its top level, the names its top-level imports bind (a
// stub's only when re-exported as themselves), the public names of the
// modules it imports whole (os's from posix), and the attributes every
// module has (__name__, __dict__…), as pyright lists them.
func (c *collector) pythonModuleMembers(qualifier string) bool {
	files := c.s.Resolver().PythonModuleFiles(c.f.Path, qualifier)
	if len(files) == 0 {
		return false
	}
	c.pythonModuleNames(files[0], false, 0)
	c.importedSubmodules(qualifier)
	attrs := moduleAttributes
	if strings.HasPrefix(path.Base(files[0]), "__init__.") {
		attrs = append(slices.Clone(attrs), "__path__")
	}
	for _, name := range attrs {
		c.add(Item{Label: name, Kind: analysis.KindVariable, Rank: RankMember})
	}
	return true
}

// importedSubmodules adds the submodules this file's `import a.b` binds
// as attributes of a: b after "a.". `from a.b import x` binds x alone, as
// pyright reads it.
func (c *collector) importedSubmodules(qualifier string) {
	for _, imp := range c.f.Imports {
		if imp.Wildcard || imp.Alias != "" || c.fromImport(imp) {
			continue
		}
		if rest, ok := strings.CutPrefix(imp.Path, qualifier+"."); ok {
			sub, _, _ := strings.Cut(rest, ".")
			c.add(Item{Label: sub, Kind: analysis.KindModule, Detail: qualifier + "." + sub, Rank: RankMember})
		}
	}
}

// fromImport reports whether imp is of a `from m import x` statement.
func (c *collector) fromImport(imp analysis.Import) bool {
	if imp.Span.Start < 0 || imp.Span.End > len(c.text) {
		return false
	}
	return strings.HasPrefix(string(c.text[imp.Span.Start:min(imp.Span.End, imp.Span.Start+5)]), "from")
}

// moduleAttributes are what every module object has.
var moduleAttributes = []string{"__annotations__", "__builtins__", "__cached__", "__dict__", "__doc__", "__file__",
	"__loader__", "__name__", "__package__", "__spec__"}

// pythonModuleNames adds the names module file p binds at its top level;
// public only, for a module imported whole.
func (c *collector) pythonModuleNames(p string, public bool, depth int) {
	if exports, ok := c.stdlibExports(p); ok {
		from := len(c.items)
		defer c.keepExported(from, exports, p)
	}
	g := c.s.File(p)
	r := c.s.Resolver()
	// typeshed declares names under version and platform checks: those
	// the interpreter fails are not the module's (sys.setcheckinterval
	// is gone since 3.9).
	unreachable := func(offset int) bool { return r.PythonUnreachable(p, offset) }
	for _, d := range c.s.TopLevel(p) {
		if g != nil && int(d.Index) < len(g.Defs) && unreachable(g.Defs[d.Index].NameSpan.Start) {
			continue
		}
		if d.Receiver == "" && d.Kind != analysis.KindLambda && !(public && strings.HasPrefix(d.Name, "_")) {
			c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: RankMember})
		}
	}
	if g == nil {
		return
	}
	stub := strings.HasSuffix(p, ".pyi")
	// A library's `import sys` is its own business: pyright reads the
	// library's stub, which does not re-export it.
	lib, _ := c.s.(interface{ InLibrary(string) string })
	library := lib != nil && lib.InLibrary(p) != ""
	for _, imp := range g.Imports {
		if !resolve.PythonTopLevel(g, imp.Span) || unreachable(imp.Span.Start) {
			continue
		}
		if imp.Wildcard {
			if depth < 3 {
				if files := c.s.Resolver().PythonModulePath(p, imp.Path); len(files) > 0 {
					c.pythonModuleNames(files[0], true, depth+1)
				}
			}
			continue
		}
		// A private submodule the package loads for itself is not listed
		// (pyright leaves click._compat out), unless this file imports it.
		if sub := packageSubmodule(p, imp.Path); sub != "" && !strings.HasPrefix(sub, "_") {
			c.add(Item{Label: sub, Kind: analysis.KindModule, Detail: imp.Path, Rank: RankMember})
		}
		name := cmp.Or(imp.Alias, imp.Name)
		if stub && imp.Alias != imp.Name || public && strings.HasPrefix(name, "_") || library && imp.Alias == "" && imp.Path == imp.Name {
			continue
		}
		c.add(Item{Label: name, Kind: analysis.KindModule, Detail: imp.Path, Rank: RankMember})
	}
}

// packageSubmodule is the submodule a package's __init__ loads by
// importing from it (`from .core import Command` binds core too, as
// Python sets it on the package), or "".
func packageSubmodule(file, importPath string) string {
	if !strings.HasPrefix(path.Base(file), "__init__.") {
		return ""
	}
	rest, ok := strings.CutPrefix(importPath, ".")
	if !ok || strings.HasPrefix(rest, ".") {
		return ""
	}
	sub, _, nested := strings.Cut(rest, ".")
	if !nested {
		return "" // `from . import x`: x is bound by its own name already
	}
	return sub
}

// boolOrder puts a label the prefix starts before one it only fuzzily matches.
func boolOrder(a, b, lowerPrefix string) int {
	return cmp.Compare(btoi(!strings.HasPrefix(strings.ToLower(a), lowerPrefix)), btoi(!strings.HasPrefix(strings.ToLower(b), lowerPrefix)))
}
