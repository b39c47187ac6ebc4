package kotlin

import (
	"context"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

// `x in c`, `x !in c` and a when branch's `in c` are calls of c.contains
// at the operator; `for (x in xs)` and `is` checks are not. A vararg
// parameter is an array inside its function.
func TestOperatorCallsAndVarargs(t *testing.T) {
	src := "class A(vararg val names: String) {\n" +
		"    fun f(vararg ns: Int, s: Set<String>): Boolean {\n" +
		"        for (n in ns) println(n)\n" +
		"        if (s is Set<*>) println()\n" +
		"        when (\"a\") { in s -> println() }\n" +
		"        return \"a\" in s || 3 !in ns\n" +
		"    }\n}\n"
	f, err := Extract(context.Background(), "A.kt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.Refs {
		if r.Name == "contains" {
			text := src[r.Span.Start:r.Span.End]
			got = append(got, text+" "+r.Qualifier+r.Args)
			if r.Role != analysis.RoleCall {
				t.Errorf("%s at %d is a %s, want a call", text, r.Span.Start, ft.RoleString(r.Role))
			}
		}
	}
	if want := "in s(_)|in s(s)|!in ns(i)"; strings.Join(got, "|") != want {
		t.Errorf("contains calls %q, want %q", strings.Join(got, "|"), want)
	}
	if names := ft.DefNamed(t, f, "A.names"); names.TypeName != "Array<out String>" {
		t.Errorf("vararg property type %q", names.TypeName)
	}
	if ns := ft.DefNamed(t, f, "A.f.ns"); ns.TypeName != "IntArray" {
		t.Errorf("vararg Int parameter type %q", ns.TypeName)
	}
	if s := ft.DefNamed(t, f, "A.f.s"); s.TypeName != "Set<String>" {
		t.Errorf("parameter after a vararg has type %q", s.TypeName)
	}
}
