package semantic

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// duplicates reports a declaration made again in the same scope where the
// language forbids it. Only scopes whose declarations cannot be conditional
// are judged: a file's top level and a type's body (Go's package level
// across the package's files built together); locals, whose blocks the
// facts do not always tell apart, are not.
func (c *checker) duplicates() {
	seen := map[dupKey]int32{}
	for i, d := range c.f.Defs {
		k, ok := c.dupKey(int32(i), d)
		if !ok {
			continue
		}
		if first, dup := seen[k]; dup {
			c.report(d.NameSpan, c.dupSeverity(), CodeDuplicate, fmt.Sprintf("%s %s is already declared at line %d",
				d.Kind, d.Name, c.f.Defs[first].NameSpan.StartPoint.Line+1))
			continue
		}
		seen[k] = int32(i)
	}
	if c.f.Lang == "go" {
		c.goPackageDuplicates()
	}
}

// dupSeverity: Python allows a redefinition, which is a mistake far more
// often than not, so it warns; elsewhere it does not compile.
func (c *checker) dupSeverity() string {
	if c.f.Lang == "python" {
		return Warning
	}
	return Error
}

type dupKey struct {
	scope int32
	group string // the namespace and, for functions, the overload shape
	name  string
}

func (c *checker) dupKey(i int32, d analysis.Def) (dupKey, bool) {
	if d.Name == "" || d.Name == "_" || d.NameSpan.End <= d.NameSpan.Start || !c.judgedScope(d.Scope) || c.nested(i, d) {
		return dupKey{}, false
	}
	k := dupKey{scope: d.Scope, name: d.Name}
	switch c.f.Lang {
	case "go":
		if d.Container != analysis.None && !c.f.Defs[d.Container].Kind.IsType() || d.Name == "init" {
			return k, false
		}
		if d.Kind == analysis.KindMethod {
			k.group = "method " + resolve.BaseTypeName(d.Receiver)
		}
	case "kotlin", "java":
		switch {
		case d.Kind.IsType():
			k.group = "type"
		case d.Kind == analysis.KindProperty || d.Kind == analysis.KindField:
			k.group = "value " + d.Receiver
		case d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod || d.Kind == analysis.KindConstructor:
			shape := resolve.OverloadShape(d)
			if shape == "" || hasTypeParams(d.Signature) || strings.Contains(d.Signature, "@") {
				// Erasure may or may not tell them apart; an annotation's
				// text can hide the parameter list.
				return k, false
			}
			k.group = "fun" + shape
		default:
			return k, false
		}
	case "python":
		if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod && d.Kind != analysis.KindClass ||
			c.decorated(c.f, d) || !c.pyUnconditional(d) {
			return k, false
		}
	case "typescript":
		// A class twice; a function body twice (overload signatures end
		// with ';', and other kinds merge with each other).
		switch {
		case d.Kind == analysis.KindClass:
			k.group = "class"
		case d.Kind == analysis.KindFunction && d.Container == analysis.None && !endsWithSemicolon(d.Signature) &&
			c.f.Scopes[d.Scope].Parent == analysis.None && len(d.Signature) > 9 && d.Signature[:9] == "function ":
			k.group = "function"
		default:
			return k, false
		}
	default:
		return k, false
	}
	return k, true
}

// nested reports whether another definition than the owner of d's scope
// encloses d: an anonymous object's members, a local class's, which the
// facts may place in the enclosing scope.
func (c *checker) nested(i int32, d analysis.Def) bool {
	owner := c.f.Scopes[d.Scope].Def
	for j, e := range c.f.Defs {
		if int32(j) != i && int32(j) != owner && e.Kind != analysis.KindParameter &&
			e.FullSpan.Start <= d.FullSpan.Start && d.FullSpan.End <= e.FullSpan.End &&
			(e.FullSpan.Start < d.FullSpan.Start || d.FullSpan.End < e.FullSpan.End) {
			return true
		}
	}
	return false
}

// judgedScope reports whether a scope is a file's top level or a type's body.
func (c *checker) judgedScope(s int32) bool {
	if s < 0 || int(s) >= len(c.f.Scopes) {
		return false
	}
	sc := c.f.Scopes[s]
	return sc.Parent == analysis.None || sc.Def != analysis.None && c.f.Defs[sc.Def].Kind.IsType() && c.f.Defs[sc.Def].Name != ""
}

// pyUnconditional reports whether a Python def sits at the base indentation
// of its scope: not under an if, a try or a loop, where defining a name
// twice is how Python code chooses between versions.
func (c *checker) pyUnconditional(d analysis.Def) bool {
	base := -1
	for _, o := range c.f.Defs {
		if o.Scope == d.Scope && o.NameSpan.End > o.NameSpan.Start && (base < 0 || o.FullSpan.StartPoint.Col < base) {
			base = o.FullSpan.StartPoint.Col
		}
	}
	return d.FullSpan.StartPoint.Col == base
}

func endsWithSemicolon(s string) bool { return len(s) > 0 && s[len(s)-1] == ';' }

func hasTypeParams(sig string) bool {
	for i := 0; i < len(sig); i++ {
		if sig[i] == '<' {
			return true
		}
	}
	return false
}

// goPackageDuplicates reports a package-level name of the file declared
// again in another file of its package that is built with it. What rules
// a candidate out without its file's facts is asked first: in a folder of
// per-platform files (syscall's zsyscall_*), every name is declared in
// each, and decoding them all took a third of the server's CPU while a
// cold start's queries ran.
func (c *checker) goPackageDuplicates() {
	if goConstrained(c.f.Path) {
		return
	}
	packager, _ := c.ws.(resolve.FilePackager)
	constrained := map[string]bool{} // goConstrained by path, read once
	for _, d := range c.f.Defs {
		if d.Container != analysis.None || d.Scope != 0 || d.Name == "_" || d.Name == "init" || d.Name == "" ||
			d.Kind == analysis.KindMethod || d.Kind == analysis.KindPackage {
			continue
		}
		if c.ctx.Err() != nil {
			return // closed or changed: nothing will be published
		}
		for _, e := range c.ws.DefsNamed(d.Name) {
			if e.Path == c.f.Path || e.Lang != "go" || e.Nested || e.Kind == analysis.KindMethod || !sameDir(e.Path, c.f.Path) ||
				!resolve.BuildsWith(c.f.Path, e.Path) || !resolve.BuildsWith(e.Path, c.f.Path) {
				continue
			}
			if packager != nil {
				if pkg, ok := packager.FilePackage(e.Path); ok && pkg != c.f.Package {
					continue
				}
			}
			isConstrained, read := constrained[e.Path]
			if !read {
				isConstrained = goConstrained(e.Path)
				constrained[e.Path] = isConstrained
			}
			if isConstrained {
				continue
			}
			g, o, ok := c.def(e.DefID)
			if !ok || g.Package != c.f.Package || o.Container != analysis.None || o.Scope != 0 {
				continue
			}
			c.report(d.NameSpan, Error, CodeDuplicate, fmt.Sprintf("%s %s is also declared in %s", d.Kind, d.Name, baseName(e.Path)))
			break
		}
	}
}

// goConstrained reports whether a Go file has a build constraint line,
// which kast does not evaluate here: two files that declare one name may
// never be built together.
func goConstrained(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan() && n < 64; n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "//go:build") || strings.HasPrefix(line, "// +build") {
			return true
		}
		if strings.HasPrefix(line, "package ") {
			return false
		}
	}
	return false
}

func sameDir(a, b string) bool { return dirOf(a) == dirOf(b) }

func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[:i]
		}
	}
	return ""
}

func baseName(p string) string { return p[len(dirOf(p))+1:] }
