// Package semantic finds errors from kast's own resolution, without any
// toolchain: names and imports that resolve to nothing, calls with a number
// of arguments no overload takes, and declarations made twice in one scope.
//
// It is conservative by design. Resolution is syntactic and the workspace
// does not hold the languages' libraries, so a finding is only made where
// every place the name could come from is known: a file with a wildcard or
// dot import, a name a library could declare, a call inside a lambda whose
// receiver is unknown, a type with a supertype from outside the workspace —
// each of these is left alone rather than guessed at.
package semantic

import (
	"context"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Codes of the findings, stable for machines.
const (
	CodeUnresolvedName   = "kast/unresolved-name"
	CodeUnresolvedImport = "kast/unresolved-import"
	CodeWrongArity       = "kast/wrong-arity"
	CodeDuplicate        = "kast/duplicate-declaration"
)

// Source names what the findings come from.
const Source = "kast"

// Severities.
const (
	Error   = "error"
	Warning = "warning"
)

// Finding is one semantic diagnostic in a file.
type Finding struct {
	Path     string
	Span     analysis.Span
	Severity string
	Code     string
	Message  string
}

// Workspace is what the checks read: the workspace's files and name tables,
// and a resolver over them (a workspace.Snapshot is one).
type Workspace interface {
	resolve.Workspace
	Resolver() *resolve.Resolver
}

// Languages lists the languages the checks are sound for.
var Languages = []string{"go", "kotlin", "java", "python", "typescript"}

// Supports reports whether the checks run on files of lang.
func Supports(lang string) bool { return slices.Contains(Languages, lang) }

// Check finds the semantic errors of one file, whose text is src (the
// bytes its facts were extracted from; other bytes get nothing). A file with
// syntax errors gets none: its facts are partial.
func Check(ctx context.Context, ws Workspace, path string, src []byte) []Finding {
	f := ws.File(path)
	if f == nil || len(f.Errors) > 0 || !Supports(f.Lang) || !applies(f) || f.Size != len(src) {
		return nil
	}
	c := &checker{ctx: ctx, ws: ws, res: ws.Resolver(), f: f, src: src}
	c.unresolvedImports()
	c.refs()
	c.duplicates()
	slices.SortFunc(c.out, func(a, b Finding) int { return a.Span.Start - b.Span.Start })
	return c.out
}

// applies rules out whole files whose names kast cannot account for:
// Kotlin scripts run against a host's implicit receiver (Gradle's DSL),
// TypeScript declaration files describe code kast does not see.
func applies(f *analysis.FileFacts) bool {
	switch {
	case strings.HasSuffix(f.Path, ".kts"), strings.HasSuffix(f.Path, ".d.ts"):
		return false
	case f.Lang == "typescript" && !strings.HasSuffix(f.Path, ".ts") && !strings.HasSuffix(f.Path, ".tsx"):
		return false
	}
	return true
}

type checker struct {
	ctx context.Context
	ws  Workspace
	res *resolve.Resolver
	f   *analysis.FileFacts
	src []byte
	out []Finding
	// texts are other files' texts, read once (a callee's decorators).
	texts map[string][]byte
	// names are the names that may be declared out of kast's sight, by
	// name (see mayBeDeclared).
	names map[string]bool
}

func (c *checker) report(span analysis.Span, severity, code, msg string) {
	c.out = append(c.out, Finding{Path: c.f.Path, Span: span, Severity: severity, Code: code, Message: msg})
}

// refs runs the per-reference checks: unresolved names and arity.
func (c *checker) refs() {
	open := c.fileIsOpen()
	for i, ref := range c.f.Refs {
		if i%256 == 0 && c.ctx.Err() != nil {
			return
		}
		if ref.Role&analysis.RoleImport != 0 {
			continue
		}
		if ref.Qualifier == "" && !open && c.unresolved(int32(i), ref) {
			c.report(ref.Span, Error, CodeUnresolvedName, "unresolved reference: "+ref.Name)
			continue
		}
		if ref.Role&analysis.RoleCall != 0 {
			c.arity(int32(i), ref)
		}
	}
}

// fileIsOpen reports whether names of the file may come from places kast
// cannot list: wildcard and dot imports, Python's dynamic namespaces.
func (c *checker) fileIsOpen() bool {
	for _, imp := range c.f.Imports {
		if imp.Wildcard && c.f.Lang != "go" {
			return true
		}
		if c.f.Lang == "go" && (imp.Alias == "." || imp.Path == "C") {
			return true // a dot import, or cgo's names
		}
	}
	if c.f.Lang == "python" {
		for _, d := range c.f.Defs {
			if d.Name == "__getattr__" && d.Container == analysis.None {
				return true
			}
		}
		for _, ref := range c.f.Refs {
			switch ref.Name {
			case "globals", "exec", "locals", "vars", "__builtins__":
				if ref.Qualifier == "" {
					return true
				}
			}
		}
	}
	return false
}

// resolved lists the sure candidates of a reference.
func (c *checker) resolved(i int32) []resolve.Candidate {
	var out []resolve.Candidate
	for _, cand := range c.res.Resolve(resolve.RefID{Path: c.f.Path, Index: i}) {
		if !cand.Uncertain {
			out = append(out, cand)
		}
	}
	return out
}

// def returns a candidate's definition.
func (c *checker) def(id resolve.DefID) (*analysis.FileFacts, analysis.Def, bool) {
	g := c.ws.File(id.Path)
	if g == nil || id.Index < 0 || int(id.Index) >= len(g.Defs) {
		return nil, analysis.Def{}, false
	}
	return g, g.Defs[id.Index], true
}
