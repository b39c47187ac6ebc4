// Package factstest renders FileFacts as short strings so language tests can
// assert on them with table-driven subset checks.
package factstest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/naming"
)

// Defs renders every def as "kind Container.name".
func Defs(f *analysis.FileFacts) []string {
	out := make([]string, len(f.Defs))
	for i, d := range f.Defs {
		out[i] = d.Kind.String() + " " + naming.Contained(f, int32(i))
	}
	return out
}

// Refs renders every ref as "role qualifier.name".
func Refs(f *analysis.FileFacts) []string {
	out := make([]string, len(f.Refs))
	for i, r := range f.Refs {
		name := r.Name
		if r.Qualifier != "" {
			name = r.Qualifier + "." + name
		}
		out[i] = RoleString(r.Role) + " " + name
	}
	return out
}

// RoleString names the bits of a role, joined by "|".
func RoleString(r analysis.Role) string {
	names := []string{"read", "write", "call", "type", "import", "inheritance"}
	var parts []string
	for i, n := range names {
		if r&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "|")
}

// Calls renders every call edge as "caller -> callee".
func Calls(f *analysis.FileFacts) []string {
	out := make([]string, len(f.Calls))
	for i, c := range f.Calls {
		caller := "<top>"
		if c.Caller != analysis.None {
			caller = naming.Contained(f, c.Caller)
		}
		out[i] = caller + " -> " + c.Callee
	}
	return out
}

// Supertypes renders every edge as "Sub <: Super".
func Supertypes(f *analysis.FileFacts) []string {
	out := make([]string, len(f.Supertypes))
	for i, s := range f.Supertypes {
		out[i] = naming.Contained(f, s.Def) + " <: " + s.Name
	}
	return out
}

// Imports renders imports as "path", "path as alias" or "path.*".
func Imports(f *analysis.FileFacts) []string {
	out := make([]string, len(f.Imports))
	for i, imp := range f.Imports {
		switch {
		case imp.Wildcard:
			out[i] = imp.Path + ".*"
		case imp.Alias != "":
			out[i] = imp.Path + " as " + imp.Alias
		default:
			out[i] = imp.Path
		}
	}
	return out
}

// Expect is what a language test asserts about one file: each listed string
// must appear in the rendered facts, each Absent one must not.
type Expect struct {
	Package    string
	Defs       []string
	Refs       []string
	Calls      []string
	Supertypes []string
	Imports    []string
	Absent     []string // refs or defs that must not appear
	Errors     int      // number of syntax errors
}

// Check asserts e against f.
func Check(t *testing.T, f *analysis.FileFacts, e Expect) {
	t.Helper()
	if f.Package != e.Package {
		t.Errorf("package = %q, want %q", f.Package, e.Package)
	}
	contains(t, "defs", Defs(f), e.Defs)
	contains(t, "refs", Refs(f), e.Refs)
	contains(t, "calls", Calls(f), e.Calls)
	contains(t, "supertypes", Supertypes(f), e.Supertypes)
	contains(t, "imports", Imports(f), e.Imports)
	all := append(Defs(f), Refs(f)...)
	for _, a := range e.Absent {
		if slices.Contains(all, a) {
			t.Errorf("unexpected %q", a)
		}
	}
	if len(f.Errors) != e.Errors {
		t.Errorf("%d syntax errors %v, want %d", len(f.Errors), f.Errors, e.Errors)
	}
}

func contains(t *testing.T, what string, got, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: missing %q\n got: %s", what, w, fmt.Sprintf("%q", got))
		}
	}
}

// DefNamed returns the first def with the qualified name, failing the test if none.
func DefNamed(t *testing.T, f *analysis.FileFacts, qualified string) analysis.Def {
	t.Helper()
	for i := range f.Defs {
		if naming.Contained(f, int32(i)) == qualified {
			return f.Defs[i]
		}
	}
	t.Fatalf("no def %q in %q", qualified, Defs(f))
	return analysis.Def{}
}
