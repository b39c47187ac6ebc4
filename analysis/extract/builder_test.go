package extract_test

import (
	"context"
	"testing"

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
