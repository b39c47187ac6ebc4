package syntax_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/smacker/go-tree-sitter/golang"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

var goLang = syntax.NewLanguage("go", golang.GetLanguage())

func parse(t *testing.T, l *syntax.Language, src string) *syntax.Tree {
	t.Helper()
	tree, err := l.Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return tree
}

func TestNodes(t *testing.T) {
	tree := parse(t, goLang, "package p\n\nfunc f(a int) {}\n")
	fn := tree.Root().Child("function_declaration")
	name := fn.Field("name")
	if name.Text() != "f" || name.Type() != "identifier" || !name.IsNamed() {
		t.Fatalf("name = %q %q", name.Text(), name.Type())
	}
	if got, want := name.Span(), (analysis.Span{Start: 16, End: 17, StartPoint: analysis.Point{Line: 2, Col: 5}, EndPoint: analysis.Point{Line: 2, Col: 6}}); got != want {
		t.Errorf("span = %+v, want %+v", got, want)
	}
	if !name.Parent().Same(fn) || fn.Field("missing").Valid() || fn.Field("missing").Field("x").Text() != "" {
		t.Error("navigation on nodes is wrong")
	}
	if len(tree.Errors()) != 0 {
		t.Errorf("errors in valid code: %v", tree.Errors())
	}
}

func TestErrorsAndIgnoredMissing(t *testing.T) {
	const broken = "package p\nfunc f( {\n}\n"
	errs := parse(t, goLang, broken).Errors()
	if len(errs) != 1 || errs[0].Span.StartPoint.Line != 1 {
		t.Fatalf("errors = %+v", errs)
	}
	// A language can declare MISSING nodes that are not errors, as Kotlin
	// does for its automatic semicolons.
	missing := "package p\nfunc f() { g(1 }\n"
	errs = parse(t, goLang, missing).Errors()
	if len(errs) != 1 || errs[0].Message != "missing )" {
		t.Fatalf("errors = %+v", errs)
	}
	tolerant := syntax.NewLanguage("go", golang.GetLanguage(), ")")
	if errs := parse(t, tolerant, missing).Errors(); len(errs) != 0 {
		t.Errorf("ignored MISSING ) reported: %+v", errs)
	}
}

func TestReparseKeepsPointsRight(t *testing.T) {
	old := "package p\n\nfunc f() {}\n\nfunc g() {}\n"
	tree := parse(t, goLang, old)
	insert := "// a\n// b\n"
	at := strings.Index(old, "func f")
	src := old[:at] + insert + old[at:]
	line2 := analysis.Point{Line: 2, Col: 0}
	edit := syntax.Edit{Start: at, OldEnd: at, NewEnd: at + len(insert), StartPoint: line2, OldEndPoint: line2, NewEndPoint: analysis.Point{Line: 4, Col: 0}}
	next, err := goLang.Reparse(context.Background(), tree, []byte(src), edit)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	g := next.Root().ChildrenOf("function_declaration")[1].Field("name")
	if g.Text() != "g" || g.Span().StartPoint != (analysis.Point{Line: 6, Col: 5}) {
		t.Errorf("g after reparse at %+v (%q)", g.Span().StartPoint, g.Text())
	}
	// A second edit refers to the text after the first: rename g to gg.
	gAt := strings.Index(src, "func g") + 5
	src2 := src[:gAt] + "g" + src[gAt:]
	gPoint := analysis.Point{Line: 6, Col: 5}
	rename := syntax.Edit{Start: gAt, OldEnd: gAt, NewEnd: gAt + 1, StartPoint: gPoint, OldEndPoint: gPoint, NewEndPoint: analysis.Point{Line: 6, Col: 6}}
	third, err := goLang.Reparse(context.Background(), next, []byte(src2), rename)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if names := third.Root().ChildrenOf("function_declaration"); len(names) != 2 || names[1].Field("name").Text() != "gg" || third.Root().HasError() {
		t.Errorf("after the second edit: %s", third.Root())
	}
}

func TestCancelledParseResetsParser(t *testing.T) {
	big := "package p\n" + strings.Repeat("func f() { x := []int{1, 2, 3}; _ = x }\n", 200_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := goLang.Parse(ctx, []byte(big)); !errors.Is(err, context.Canceled) {
		t.Fatalf("parse with a cancelled context: %v", err)
	}
	// The pooled parser must start afresh rather than resume the big parse.
	tree := parse(t, goLang, "package q\n")
	if root := tree.Root(); root.End() != 10 || root.HasError() || root.Child("package_clause").Text() != "package q" {
		t.Errorf("parse after cancel = %s", root)
	}
}

func TestConcurrentParses(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := "package p\nfunc f" + strings.Repeat("x", i) + "() {}\n"
			for range 20 {
				tree, err := goLang.Parse(context.Background(), []byte(src))
				if err != nil {
					t.Error(err)
					return
				}
				if name := tree.Root().Child("function_declaration").Field("name").Text(); name != "f"+strings.Repeat("x", i) {
					t.Errorf("name %q", name)
				}
				tree.Close()
			}
		}()
	}
	wg.Wait()
}

func TestNamedSiblingsMatchNamedChildren(t *testing.T) {
	tree := parse(t, goLang, "package p\n\n// c\nvar (\n\ta = 1 // x\n\tb, c = 2, 3\n)\n\nfunc f(a int, b string) { g(a, b); {} }\n")
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		var walked []syntax.Node
		for c := n.FirstNamedChild(); c.Valid(); c = c.NextNamedSibling() {
			walked = append(walked, c)
		}
		listed := n.NamedChildren()
		if len(walked) != len(listed) {
			t.Fatalf("%s: walked %d named children, NamedChildren has %d", n.Type(), len(walked), len(listed))
		}
		for i := range listed {
			if !walked[i].Same(listed[i]) {
				t.Fatalf("%s: named child %d differs", n.Type(), i)
			}
			visit(listed[i])
		}
	}
	visit(tree.Root())
	if (syntax.Node{}).FirstNamedChild().Valid() || (syntax.Node{}).NextNamedSibling().Valid() {
		t.Error("the invalid node has children")
	}
}
