package extract_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/golang"
	"github.com/kast-dev/kast/analysis/syntax"
)

func TestQualifier(t *testing.T) {
	src := "package p\n\nvar _ = a.b\nvar _ = x.\n\ty().\n\tz\nvar _ = (a  +\tb).c\n"
	tree, err := golang.Syntax.Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var got []string
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		if n.Type() == "selector_expression" && n.Parent().Type() == "expression_list" {
			got = append(got, extract.Qualifier(n.Field("operand")))
		}
		for c := n.FirstNamedChild(); c.Valid(); c = c.NextNamedSibling() {
			visit(c)
		}
	}
	visit(tree.Root())
	want := []string{"a", "x.y()", "(a + b)"}
	if len(got) != len(want) {
		t.Fatalf("qualifiers %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("qualifier %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// Facts built after others were released carry nothing of them: the
// released slices are reused, never their contents.
func TestReleasedFactsLeaveNothingBehind(t *testing.T) {
	extractGo := func(src string) *analysis.FileFacts {
		t.Helper()
		facts, err := extract.Run(context.Background(), golang.Syntax, golang.Walk, "p.go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return facts
	}
	big := "package p\n\nimport \"fmt\"\n\ntype T struct{ A, B int }\n\n" +
		"func (t *T) M(x, y int) int { z := x + y; fmt.Println(z, t.A); return t.B }\n\n" +
		"func F() { var t T; t.M(1, 2); F(); G(3) }\n\nfunc G(n int) int { return n * n }\n"
	small := "package q\n\nfunc H() { H() }\n"
	want := extractGo(small) // before anything was released
	for range 20 {
		extract.Release(extractGo(big))
		got := extractGo(small)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("facts after a release:\n%+v\nwant\n%+v", got, want)
		}
		extract.Release(got)
	}
}
