package syntax_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

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

// bigSource takes tree-sitter well over a tenth of a second to parse.
var bigSource = []byte("package p\n" + strings.Repeat("func f() { x := []int{1, 2, 3}; _ = x }\n", 200_000))

func TestCancelledParseResetsParser(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := goLang.Parse(ctx, bigSource); !errors.Is(err, context.Canceled) {
		t.Fatalf("parse with a cancelled context: %v", err)
	}
	// Cancel while tree-sitter parses, with a Language of its own, whose
	// pool then holds the one parser the cancelled parse used.
	l := syntax.NewLanguage("go", golang.GetLanguage())
	ctx, cancel = context.WithCancel(context.Background())
	timer := time.AfterFunc(10*time.Millisecond, cancel)
	defer timer.Stop()
	if _, err := l.Parse(ctx, bigSource); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "parse go: ") {
		t.Fatalf("parse cancelled midway: %v", err)
	}
	// The pooled parser must start afresh rather than resume the big parse.
	for _, l := range []*syntax.Language{goLang, l} {
		tree := parse(t, l, "package q\n")
		if root := tree.Root(); root.End() != 10 || root.HasError() || root.Child("package_clause").Text() != "package q" {
			t.Errorf("parse after cancel: root [%d,%d), has error %v", root.Start(), root.End(), root.HasError())
		}
	}
}

// TestConcurrentCancellableParses parses and reparses on several goroutines
// with contexts cancelled during, after or never: run it with -race. A parse
// may fail only with context.Canceled, and its tree must be right.
func TestConcurrentCancellableParses(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "f" + strings.Repeat("x", i)
			for j := range 50 {
				if !cancellableParse(t, name, j%3) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// cancellableParse parses a function named name and reparses it renamed,
// with a context cancelled by another goroutine at about the time of the
// parse (mode 0), right after the parse (1) or never (2). It reports false
// after an error.
func cancellableParse(t *testing.T, name string, mode int) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if mode == 0 {
		go cancel()
	}
	src := []byte("package p\nfunc " + name + "() { g(1, 2) }\n")
	tree, err := goLang.Parse(ctx, src)
	if mode == 1 {
		cancel()
	}
	if err != nil {
		if mode != 0 || !errors.Is(err, context.Canceled) {
			t.Error(err)
			return false
		}
		return true
	}
	defer tree.Close()
	// Rename f to _f: the edit inserts a byte before the name.
	at := len("package p\nfunc ")
	p := analysis.Point{Line: 1, Col: len("func ")}
	next := append(append(append([]byte{}, src[:at]...), '_'), src[at:]...)
	re, err := goLang.Reparse(ctx, tree, next, syntax.Edit{Start: at, OldEnd: at, NewEnd: at + 1,
		StartPoint: p, OldEndPoint: p, NewEndPoint: analysis.Point{Line: 1, Col: p.Col + 1}})
	switch {
	case err == nil:
		if got := re.Root().Child("function_declaration").Field("name").Text(); got != "_"+name || re.Root().HasError() {
			t.Errorf("name after reparse %q in %s", got, re.Root())
		}
		re.Close()
	case mode == 2 || !errors.Is(err, context.Canceled):
		t.Error(err)
		return false
	}
	if got := tree.Root().Child("function_declaration").Field("name").Text(); got != name {
		t.Errorf("name %q", got)
		return false
	}
	return true
}

// TestEmptySource parses and reparses empty sources, nil or not.
func TestEmptySource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, src := range [][]byte{nil, {}} {
		tree, err := goLang.Parse(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		if root := tree.Root(); root.Type() != "source_file" || root.End() != 0 || tree.NodeCount() != 1 || len(tree.Errors()) != 0 {
			t.Errorf("empty source: %s, %d nodes, errors %v", root, tree.NodeCount(), tree.Errors())
		}
		// From empty to a package clause and back.
		const text = "package p\n"
		re, err := goLang.Reparse(ctx, tree, []byte(text), syntax.Edit{NewEnd: len(text), NewEndPoint: analysis.Point{Line: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got := re.Root().Child("package_clause").Text(); got != "package p" {
			t.Errorf("after inserting %q: package clause %q", text, got)
		}
		back, err := goLang.Reparse(ctx, re, src, syntax.Edit{OldEnd: len(text), OldEndPoint: analysis.Point{Line: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if root := back.Root(); root.End() != 0 || back.NodeCount() != 1 {
			t.Errorf("after deleting everything: %s", root)
		}
		if err := goLang.ParseOnly(ctx, src); err != nil {
			t.Error(err)
		}
		back.Close()
		re.Close()
		tree.Close()
	}
}

// TestCloseTwice: closing a tree again does nothing, and reparsing a closed
// tree fails rather than touching freed memory.
func TestCloseTwice(t *testing.T) {
	tree := parse(t, goLang, "package p\n")
	tree.Close()
	tree.Close()
	if _, err := goLang.Reparse(context.Background(), tree, []byte("package q\n")); err == nil {
		t.Error("reparse of a closed tree succeeded")
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
