// Flattened trees compared node for node with the binding's in nine
// grammars; the fast flattener's own cases are in flatfast_test.go.

package syntax

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/kast-dev/kast/analysis"
)

// flattenCases are sources in several grammars, valid and broken: ERROR
// nodes, MISSING nodes, extras such as comments between fields, aliases and
// hidden nodes.
var flattenCases = []struct {
	name    string
	grammar *sitter.Language
	src     string
}{
	{"go", golang.GetLanguage(), "package p\n\nimport \"fmt\"\n\nfunc f(a, b int) { if a > b { fmt.Println(a) } }\n\nfunc g( {\n"},
	{"go-ok", golang.GetLanguage(), "package p\n\n// T is.\ntype T struct {\n\tA, B int // c\n\tC    []map[string]chan<- T `json:\"c\"`\n}\n\nfunc (t *T) M(x ...int) (r int, err error) {\n\tfor i, v := range x {\n\t\tswitch {\n\t\tcase v > 0 /* c */ :\n\t\t\tr += i\n\t\tdefault:\n\t\t\tgoto L\n\t\t}\n\t}\nL:\n\treturn r, func() error { return nil }()\n}\n\nvar _ = []any{1, \"s\", 'c', 2.5i, T{A: 1}, [...]int{}, struct{}{}}\n"},
	{"go-missing", golang.GetLanguage(), "package p\nfunc f() { x := []int{1, 2\n g(x[1:2]\n}\nfunc h() { if x { \n"},
	{"kotlin", kotlin.GetLanguage(), "package a.b\n\nimport x.y.*\n\n/** doc */\nclass C<T : Any>(val x: Int, var y: String = \"s$x ${x + 1}\") : B(), I {\n    fun f(a: Int): Int = when (a) { 1 -> 2 else -> a * 2 }\n    val l = listOf(1, 2).map { it + 1 }\n    companion object { const val K = 1 }\n}\n\nfun g( {\n"},
	{"kotlin-missing", kotlin.GetLanguage(), "fun f() {\n    val x = (1 + 2\n    if (x > 1 { }\n}\n"},
	{"python", python.GetLanguage(), "import os\nfrom a import (b, c as d)\n\n@dec\nclass C(B, metaclass=M):\n    \"\"\"doc\"\"\"\n    def f(self, x: int = 1, *a, **k) -> int:\n        # comment\n        return [y for y in x if y] or {k: v for k, v in a}\n\nlambda x: x\nprint(f\"{x!r:>10}\")\ndef g(:\n    pass\n"},
	{"python-missing", python.GetLanguage(), "x = (1,\nprint((1)\nif x\n    pass\n"},
	{"typescript", typescript.GetLanguage(), "import { a, b as c } from \"m\";\nexport interface I<T> { x: T; f(y: number): string }\nexport class C extends B implements I<number> {\n  private x = 1;\n  constructor(public y: string) { super(); }\n  get z(): number { return this.x as number; }\n}\nconst f = async <T,>(a: T[]): Promise<T> => a[0]!;\ntype U = { [k: string]: U } | null;\nenum E { A = 1, B }\nlet s = `t ${f([1])} u`;\nfunction g( {\n"},
	{"typescript-missing", typescript.GetLanguage(), "let x = (1 + 2;\nif (x { }\nclass D { m() { return [1, 2 } }\n"},
	{"tsx", tsx.GetLanguage(), "const e = <div className=\"a\" onClick={() => f(1)}>{x}<br/></div>;\nconst g = <p>\n"},
	{"java", java.GetLanguage(), "package p;\nimport java.util.*;\n@A(x = 1)\npublic class C<T> extends B implements I {\n  private int x = 1;\n  public <U> U f(List<? extends U> l) throws E { return l.get(0); }\n  void g( {\n}\n"},
	{"rust", rust.GetLanguage(), "use std::io::{self, Read};\n#[derive(Debug)]\npub struct S<'a, T: Clone> { x: &'a T }\nimpl<T> S<'_, T> { fn f(&self) -> Option<i32> { match 1 { 1 => Some(2), _ => None } } }\nmacro_rules! m { ($x:expr) => { $x } }\nfn g( {\n"},
	{"ruby", ruby.GetLanguage(), "module M\n  class C < B\n    def f(a, b = 1, *c, d:, &e)\n      x = a.map { |y| y * 2 } if b\n      \"s #{x}\"\n    end\n  end\nend\ndef g(\n"},
	{"javascript", javascript.GetLanguage(), "import x from 'y';\nclass A extends B { #p = 1; static m(a = 1, ...r) { return a?.b ?? r; } }\nconst re = /a+/g, t = `x${1}`;\nfunction g( {\n"},
}

// TestFlattenMatchesBinding compares every field of every flat node with the
// binding's own node and cursor API, on a tree the binding parsed from the
// same source, in several grammars: it guards everything both walks write.
func TestFlattenMatchesBinding(t *testing.T) {
	var missing, errs int
	for _, tc := range flattenCases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLanguage(tc.name, tc.grammar)
			tree, err := l.Parse(context.Background(), []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			m, e := compareWalksWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
			missing += m
			errs += e
		})
	}
	// The cases must exercise error recovery.
	if missing == 0 || errs == 0 {
		t.Errorf("cases have %d MISSING and %d ERROR nodes, want some of each", missing, errs)
	}
}

// TestFlattenMatchesBindingStdlib runs the comparison on Go standard library
// files, when GOROOT/src is present.
func TestFlattenMatchesBindingStdlib(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src")
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.go"))
	if len(paths) == 0 {
		t.Skip("no Go standard library under " + root)
	}
	sort.Strings(paths)
	step := 1 + len(paths)/40
	if testing.Short() {
		step = 1 + len(paths)/5
	}
	l := NewLanguage("go", golang.GetLanguage())
	for i := 0; i < len(paths); i += step {
		tree := parseFile(t, l, paths[i])
		if tree == nil {
			continue
		}
		t.Run(filepath.Base(paths[i]), func(t *testing.T) { compareWalksWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src)) })
		tree.Close()
	}
}

// bindingParse parses src with one of l's go-tree-sitter parsers, reusing old
// when it is not nil, for comparisons with our trees. The tree is closed when
// the test ends.
func bindingParse(tb testing.TB, l *Language, old *sitter.Tree, src []byte) *sitter.Tree {
	tb.Helper()
	p := l.floor.get()
	defer l.floor.put(p)
	bt, err := p.ParseCtx(context.Background(), old, src)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(bt.Close)
	return bt
}

// compareWalksWithBinding compares the nodes flatten gave tree, then those of
// the fast walk and of the cursor walk, each forced, with the binding's tree
// want of the same source.
func compareWalksWithBinding(t *testing.T, l *Language, tree *Tree, want *sitter.Tree) (missing, errs int) {
	t.Helper()
	missing, errs = compareWithBinding(t, l, tree, want)
	saved := tree.nodes
	defer func() { tree.nodes = saved }()
	for _, fast := range []bool{true, false} {
		if fast && !fastPlatform {
			continue
		}
		nodes, ok := flattenWith(tree.tree, nil, fast)
		if !ok {
			t.Fatalf("flattenWith(fast=%v) failed", fast)
		}
		tree.nodes = nodes
		compareWithBinding(t, l, tree, want)
	}
	return missing, errs
}

// compareWithBinding walks the binding's cursor over want, the binding's
// tree of the same source, in preorder beside tree's flat array, and want's
// nodes recursively beside tree's Nodes. It returns the numbers of MISSING
// and ERROR nodes seen.
func compareWithBinding(t *testing.T, l *Language, tree *Tree, want *sitter.Tree) (missing, errs int) {
	t.Helper()
	nodes := tree.nodes
	c := sitter.NewTreeCursor(want.RootNode())
	defer c.Close()
	// parents[d] is the flat index of the current ancestor at depth d, and
	// prev[d] that of the last node seen at depth d+1 under it.
	var parents, prev []int
	i := 0
	for {
		if i >= len(nodes) {
			t.Fatalf("flat tree has %d nodes, the binding more", len(nodes))
		}
		want, got := c.CurrentNode(), nodes[i]
		wantField := uint16(0)
		if name := c.CurrentFieldName(); name != "" {
			wantField = l.fieldIDs[name]
			if wantField == 0 {
				t.Fatalf("node %d: unknown field %q", i, name)
			}
		}
		wantParent, wantFlags := 0, 0
		if d := len(parents); d > 0 {
			wantParent = parents[d-1]
			if p := prev[d-1]; p >= 0 && int(nodes[p].next) != i {
				t.Fatalf("node %d: previous sibling %d links to %d", i, p, nodes[p].next)
			}
			prev[d-1] = i
		}
		if want.IsNamed() {
			wantFlags |= flagNamed
		}
		if want.IsMissing() {
			wantFlags |= flagMissing
			missing++
		}
		if want.HasError() {
			wantFlags |= flagHasError
		}
		if want.IsError() {
			errs++
		}
		if uint16(got.symbol) != uint16(want.Symbol()) || uint32(got.start) != want.StartByte() || uint32(got.end) != want.EndByte() ||
			uint16(got.field) != wantField || int(got.flags) != wantFlags || int(got.parent) != wantParent ||
			uint32(got.children) != want.ChildCount() {
			t.Fatalf("node %d: binding %s [%d,%d) symbol %d field %d flags %d parent %d children %d; flat symbol %d [%d,%d) field %d flags %d parent %d children %d",
				i, want.Type(), want.StartByte(), want.EndByte(), want.Symbol(), wantField, wantFlags, wantParent, want.ChildCount(),
				got.symbol, got.start, got.end, got.field, got.flags, got.parent, got.children)
		}
		if c.GoToFirstChild() {
			parents = append(parents, i)
			prev = append(prev, -1)
			i++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				goto done
			}
			if p := prev[len(prev)-1]; nodes[p].next != 0 {
				t.Fatalf("node %d: last child links to %d", p, nodes[p].next)
			}
			parents, prev = parents[:len(parents)-1], prev[:len(prev)-1]
		}
		i++
	}
done:
	if i+1 != len(nodes) {
		t.Fatalf("flat tree has %d nodes, the binding %d", len(nodes), i+1)
	}
	if nodes[0].next != 0 || nodes[0].parent != 0 {
		t.Fatalf("root links to parent %d, next %d", nodes[0].parent, nodes[0].next)
	}

	var compare func(want *sitter.Node, got Node, field string)
	compare = func(want *sitter.Node, got Node, field string) {
		if want.Type() != got.Type() || int(want.StartByte()) != got.Start() || int(want.EndByte()) != got.End() ||
			want.IsNamed() != got.IsNamed() || want.IsMissing() != got.IsMissing() || want.HasError() != got.HasError() ||
			want.IsError() != got.IsError() {
			t.Fatalf("binding %s [%d,%d) vs flat %s [%d,%d)", want.Type(), want.StartByte(), want.EndByte(), got.Type(), got.Start(), got.End())
		}
		if field != "" && !got.Parent().Field(field).Valid() {
			t.Errorf("%s: field %s missing", got.Parent().Type(), field)
		}
		children := got.Children()
		if int(want.ChildCount()) != len(children) {
			t.Fatalf("%s: %d children, flat has %d", want.Type(), want.ChildCount(), len(children))
		}
		for i, c := range children {
			if !c.Parent().Same(got) {
				t.Fatalf("%s: child %d has the wrong parent", got.Type(), i)
			}
			compare(want.Child(i), c, want.FieldNameForChild(i))
		}
	}
	compare(want.RootNode(), tree.Root(), "")
	return missing, errs
}

func TestLineStarts(t *testing.T) {
	for src, want := range map[string][]int{
		"":                 {0},
		"x":                {0},
		"\n":               {0, 1},
		"a\n\nbc\n\n\ndef": {0, 2, 3, 6, 7, 8},
		"ab\ncd\n":         {0, 3, 6},
	} {
		if got := lineStarts([]byte(src)); !slices.Equal(got, want) {
			t.Errorf("lineStarts(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestLineFrom checks the galloping search against sort.SearchInts at every
// offset of a text with empty lines and no final newline, from every hint,
// and Span's points, which keep a hint between calls, in shuffled order.
func TestLineFrom(t *testing.T) {
	src := []byte("a\n\nbc\n\n\ndef")
	lines := lineStarts(src)
	want := func(off int) int { return sort.SearchInts(lines, off+1) - 1 }
	for off := 0; off <= len(src); off++ {
		for hint := -1; hint <= len(lines); hint++ {
			if got := lineFrom(lines, hint, off); got != want(off) {
				t.Errorf("lineFrom(hint %d, offset %d) = %d, want %d", hint, off, got, want(off))
			}
		}
	}
	tree := &Tree{lines: lines}
	for _, i := range rand.Perm(len(src)*len(src) + 2*len(src) + 1) {
		start, end := i/(len(src)+1), i%(len(src)+1)
		sp := tree.Span(start, end)
		ws, we := want(start), want(end)
		if sp.StartPoint != (analysis.Point{Line: ws, Col: start - lines[ws]}) || sp.EndPoint != (analysis.Point{Line: we, Col: end - lines[we]}) {
			t.Errorf("Span(%d, %d) = %+v", start, end, sp)
		}
	}
}

// compareWalks flattens tree with the fast walk and with the cursor and
// fails at the first node where they differ.
func compareWalks(t *testing.T, name string, tree *Tree) {
	t.Helper()
	fast, ok := flattenWith(tree.tree, nil, true)
	if !ok {
		t.Fatalf("%s: the fast walk failed", name)
	}
	cursor, ok := flattenWith(tree.tree, nil, false)
	if !ok {
		t.Fatalf("%s: the cursor walk failed", name)
	}
	if len(fast) != len(cursor) {
		t.Fatalf("%s: fast walk %d nodes, cursor %d", name, len(fast), len(cursor))
	}
	for i := range fast {
		if fast[i] != cursor[i] {
			t.Fatalf("%s: node %d: fast %+v, cursor %+v", name, i, fast[i], cursor[i])
		}
	}
}

// parseFile parses the file at path, or returns nil when it cannot be read.
func parseFile(t *testing.T, l *Language, path string) *Tree {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	tree, err := l.Parse(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// stdlibGoFiles lists the .go files under GOROOT/src in order, or skips the
// test when there are none.
func stdlibGoFiles(tb testing.TB) []string {
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".go" {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		tb.Skip("no Go standard library under " + root)
	}
	sort.Strings(paths)
	return paths
}
