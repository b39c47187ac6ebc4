package semantic

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// unresolved reports whether a bare name resolves to nothing and could not
// come from anywhere kast does not see.
func (c *checker) unresolved(i int32, ref analysis.Ref) bool {
	name := ref.Name
	if name == "" || name == "_" || !isIdentifier(name) {
		return false
	}
	switch c.f.Lang {
	case "go":
		if goPredeclared[name] {
			return false
		}
	case "python":
		if pythonBuiltins[name] {
			return false
		}
	case "kotlin":
		if ref.Role&analysis.RoleCall == 0 || !isLower(name) || kotlinDefaults[name] || c.infix(ref) {
			return false
		}
	case "java", "typescript":
		if ref.Role&analysis.RoleCall == 0 || !isLower(name) || javaObjectMethods[name] && c.f.Lang == "java" ||
			typeScriptGlobals[name] && c.f.Lang == "typescript" {
			return false
		}
	default:
		return false
	}
	// What holds for the name wherever it is used, once per name: the
	// cheap tests first.
	known, ok := c.names[name]
	if !ok {
		known = c.mayBeDeclared(name)
		if c.names == nil {
			c.names = map[string]bool{}
		}
		c.names[name] = known
	}
	if known {
		return false
	}
	if (c.f.Lang == "kotlin" || c.f.Lang == "java") && (!c.closedChain(ref) || c.inLambda(ref)) {
		return false
	}
	// A name inside an import statement, or on a line that imports.
	for _, imp := range c.f.Imports {
		if imp.Span.Start <= ref.Span.Start && ref.Span.End <= imp.Span.End {
			return false
		}
	}
	lineStart := bytes.LastIndexByte(c.src[:ref.Span.Start], '\n') + 1
	if line := strings.TrimSpace(string(c.src[lineStart:ref.Span.Start])); strings.HasPrefix(line, "from ") ||
		strings.HasPrefix(line, "import ") {
		return false
	}
	// A parameter or binding written in an enclosing declaration's
	// signature that extraction did not record.
	for e := ref.Enclosing; e != analysis.None && int(e) < len(c.f.Defs); e = c.f.Defs[e].Container {
		if containsWord(c.f.Defs[e].Signature, name) {
			return false
		}
	}
	if c.f.Lang == "go" && declaresName(c.src, ref.Span.End) {
		return false
	}
	return len(c.res.Resolve(resolve.RefID{Path: c.f.Path, Index: i})) == 0
}

// mayBeDeclared reports whether a name may be declared somewhere kast sees
// or cannot see, whatever the reference: declared anywhere in the file
// (even where kast's scopes say it is not visible) or the workspace, named
// by an import (even of a library kast does not index), bound by a ":=",
// or written in the file elsewhere than at its references (a binding
// extraction does not record, a parameter of a function type). kast's
// resolution may have missed how it is visible; that is no proof it is not.
func (c *checker) mayBeDeclared(name string) bool {
	for _, d := range c.f.Defs {
		if d.Name == name {
			return true
		}
	}
	for _, imp := range c.f.Imports {
		first, _, _ := strings.Cut(imp.Path, ".")
		if !imp.Wildcard && (cmp.Or(imp.Alias, imp.Name) == name || c.f.Lang == "python" && imp.Alias == "" && first == name) {
			return true
		}
	}
	if c.f.Lang == "go" && c.goMayImport(name) {
		return true
	}
	if len(c.ws.DefsNamed(name)) > 0 {
		return true
	}
	if (c.f.Lang == "python" || c.f.Lang == "go") && c.boundByWalrus(name) {
		return true
	}
	return c.occurrences(name) > c.refsNamed(name)
}

// declaresName reports whether the Go name ending at end is followed by a
// type, as a parameter's name in a function type is (func(cmd *Command)):
// in an expression a name is never followed by another word.
func declaresName(src []byte, end int) bool {
	i := skipSpace(src, end)
	if i == end || i >= len(src) {
		return false
	}
	b := src[i]
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' ||
		b == '*' && i+1 < len(src) && src[i+1] != ' ' && src[i+1] != '=' || b == '[' && i+1 < len(src) && src[i+1] == ']'
}

// boundByWalrus reports whether name is among the names left of a ":="
// on any line of the file.
func (c *checker) boundByWalrus(name string) bool {
	for _, line := range bytes.Split(c.src, []byte{'\n'}) {
		if left, _, ok := bytes.Cut(line, []byte(":=")); ok && containsWord(string(left), name) {
			return true
		}
	}
	return false
}

// memberLevel reports whether d is declared at a file's or a type's top
// level: a member, not a local.
func (c *checker) memberLevel(d analysis.Def) bool {
	if d.Scope < 0 || int(d.Scope) >= len(c.f.Scopes) {
		return false
	}
	sc := c.f.Scopes[d.Scope]
	return sc.Parent == analysis.None || sc.Def != analysis.None && c.f.Defs[sc.Def].Kind.IsType()
}

// infix reports whether a Kotlin call is infix (0 until n): an
// expression comes just before its name.
func (c *checker) infix(ref analysis.Ref) bool {
	j := ref.Span.Start - 1
	for j >= 0 && (c.src[j] == ' ' || c.src[j] == '\t') {
		j--
	}
	if j < 0 || j == ref.Span.Start-1 {
		return false
	}
	b := c.src[j]
	return isWordByte(b) || b == ')' || b == ']' || b == '"' || b == '\''
}

func containsWord(s, name string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], name)
		if i < 0 {
			return false
		}
		at, end := from+i, from+i+len(name)
		if (at == 0 || !isWordByte(s[at-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		from = end
	}
}

// occurrences counts the places the file's text has name as a whole word.
func (c *checker) occurrences(name string) int {
	n := 0
	for from := 0; ; {
		i := bytes.Index(c.src[from:], []byte(name))
		if i < 0 {
			return n
		}
		at := from + i
		end := at + len(name)
		if (at == 0 || !isWordByte(c.src[at-1])) && (end == len(c.src) || !isWordByte(c.src[end])) {
			n++
		}
		from = end
	}
}

// refsNamed counts the file's references to name, or returns a number no
// count of occurrences exceeds when one of them writes it: a binding (a
// walrus, a destructuring) that extraction records as a write.
func (c *checker) refsNamed(name string) int {
	n := 0
	for _, r := range c.f.Refs {
		if r.Name == name {
			if r.Role&analysis.RoleWrite != 0 && r.Qualifier == "" {
				return len(c.src) + 1
			}
			n++
		}
	}
	return n
}

func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// goMayImport reports whether one of a Go file's imports may be known by
// name: its alias, or a package name its path suggests (go-isatty is
// isatty, yaml.v3 is yaml).
func (c *checker) goMayImport(name string) bool {
	want := strings.ToLower(name)
	for _, imp := range c.f.Imports {
		if imp.Alias != "" {
			if imp.Alias == name {
				return true
			}
			continue
		}
		last := strings.ToLower(imp.Path[strings.LastIndexByte(imp.Path, '/')+1:])
		if strings.Contains(strings.NewReplacer("-", "", ".", "", "_", "").Replace(last), want) {
			return true
		}
		if resolve.GoImportName(imp) == name {
			return true
		}
	}
	return false
}

// closedChain reports whether every scope around a Kotlin or Java
// reference is one whose names kast sees in full: no lambda (whose receiver
// may bring any member in), no extension function (its receiver's members),
// no type with a supertype from outside the workspace.
func (c *checker) closedChain(ref analysis.Ref) bool {
	seen := map[resolve.DefID]bool{}
	for _, d := range c.f.Defs {
		if (d.Receiver != "" || d.Kind == analysis.KindLambda) && d.FullSpan.Start <= ref.Span.Start && ref.Span.End <= d.FullSpan.End {
			return false // an extension's receiver brings its members in
		}
	}
	// An extension property's getter may lie outside the property's span:
	// the nearest declaration before the reference tells.
	nearest := -1
	for i, d := range c.f.Defs {
		if c.memberLevel(d) && d.NameSpan.Start < ref.Span.Start && (nearest < 0 || d.NameSpan.Start > c.f.Defs[nearest].NameSpan.Start) {
			nearest = i
		}
	}
	if nearest >= 0 && c.f.Defs[nearest].Receiver != "" {
		return false
	}
	for s := ref.Scope; s != analysis.None && int(s) < len(c.f.Scopes); s = c.f.Scopes[s].Parent {
		owner := c.f.Scopes[s].Def
		if owner == analysis.None {
			continue
		}
		d := c.f.Defs[owner]
		switch {
		case d.Kind == analysis.KindLambda, d.Receiver != "", d.Name == "":
			return false
		case d.Kind.IsType():
			if !c.closedType(resolve.DefID{Path: c.f.Path, Index: owner}, seen, 0) {
				return false
			}
			for i, n := range c.f.Defs { // a companion object's members are the class's too
				if n.Container == owner && n.Kind == analysis.KindObject &&
					!c.closedType(resolve.DefID{Path: c.f.Path, Index: int32(i)}, seen, 0) {
					return false
				}
			}
		}
	}
	return true
}

// closedType reports whether every supertype of a type, transitively,
// resolves surely within the workspace.
func (c *checker) closedType(id resolve.DefID, seen map[resolve.DefID]bool, depth int) bool {
	if seen[id] {
		return true
	}
	seen[id] = true
	if depth > 8 {
		return false
	}
	for _, edge := range c.res.Supertypes(id) {
		sure := false
		for _, t := range edge.Targets {
			if !t.Uncertain && t.Kind.IsType() {
				sure = true
				if !c.closedType(t.Def, seen, depth+1) {
					return false
				}
				break
			}
		}
		if !sure {
			return false
		}
	}
	return true
}

func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80) {
			return false
		}
	}
	return true
}

func isLower(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }

// goPredeclared are the identifiers of Go's universe scope.
var goPredeclared = setOf("any", "bool", "byte", "comparable", "complex64", "complex128", "error",
	"float32", "float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8",
	"uint16", "uint32", "uint64", "uintptr", "true", "false", "iota", "nil", "append", "cap", "clear",
	"close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print",
	"println", "real", "recover")

// javaObjectMethods are the methods every Java class inherits from Object.
var javaObjectMethods = setOf("getClass", "hashCode", "equals", "toString", "clone", "finalize", "notify",
	"notifyAll", "wait")
