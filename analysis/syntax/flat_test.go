// Why one long file: the flattened trees are compared node for node with
// the binding's in nine grammars; the helpers and the cases belong together.

package syntax

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
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

// TestFlattenFastMatchesCursorStdlib compares the two walks on every 25th Go
// file of GOROOT/src, or on all of them with KAST_FLATTEN_STDLIB=1.
func TestFlattenFastMatchesCursorStdlib(t *testing.T) {
	if !fastPlatform {
		t.Skip("no fast walk on this platform")
	}
	paths := stdlibGoFiles(t)
	step := 25
	if os.Getenv("KAST_FLATTEN_STDLIB") != "" {
		step = 1
	} else if testing.Short() {
		step = 400
	}
	l := NewLanguage("go", golang.GetLanguage())
	files, nodes := 0, 0
	for i := 0; i < len(paths); i += step {
		tree := parseFile(t, l, paths[i])
		if tree == nil {
			continue
		}
		compareWalks(t, paths[i], tree)
		files++
		nodes += tree.NodeCount()
		tree.Close()
	}
	t.Logf("%d files, %d nodes", files, nodes)
}

// TestFlattenFastMatchesCursorExtremes compares the two walks on deeply
// nested sources, valid and unbalanced, and on a huge one.
func TestFlattenFastMatchesCursorExtremes(t *testing.T) {
	if !fastPlatform {
		t.Skip("no fast walk on this platform")
	}
	const depth = 3000
	var huge strings.Builder
	huge.WriteString("package p\n\nvar table = []struct{ a int; b string }{\n")
	for i := range 60000 {
		fmt.Fprintf(&huge, "\t{a: %d, b: \"%d\"}, // %d\n", i, i*7, i)
	}
	huge.WriteString("}\n")
	for i := range 2000 {
		fmt.Fprintf(&huge, "func f%d(x int) int { if x > %d { return x } else { return f%d(x + 1) } }\n", i, i, i+1)
	}
	cases := []struct {
		name    string
		grammar *sitter.Language
		src     string
	}{
		{"go-parens", golang.GetLanguage(), "package p\nvar x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n"},
		{"go-blocks", golang.GetLanguage(), "package p\nfunc f() {" + strings.Repeat("{", depth) + strings.Repeat("}", depth) + "}\n"},
		{"go-unbalanced", golang.GetLanguage(), "package p\nfunc f() { x := " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth-20) + "\n"},
		{"go-calls", golang.GetLanguage(), "package p\nvar x = " + strings.Repeat("f(1, ", depth) + strings.Repeat(")", depth) + "\n"},
		{"python-lists", python.GetLanguage(), "x = " + strings.Repeat("[1, ", depth) + strings.Repeat("]", depth) + "\n"},
		{"javascript-arrows", javascript.GetLanguage(), "let f = " + strings.Repeat("x => ", depth) + "x;\n"},
		{"rust-unbalanced", rust.GetLanguage(), "fn f() { let x = " + strings.Repeat("[(", depth) + "1" + strings.Repeat(")]", depth-20) + ", 2)\n"},
		{"go-huge", golang.GetLanguage(), huge.String()},
	}
	for _, tc := range cases {
		l := NewLanguage(tc.name, tc.grammar)
		tree, err := l.Parse(context.Background(), []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		compareWalks(t, tc.name, tree)
		deepest := 0
		depths := make([]int, len(tree.nodes))
		for i := 1; i < len(tree.nodes); i++ {
			depths[i] = depths[tree.nodes[i].parent] + 1
			deepest = max(deepest, depths[i])
		}
		t.Logf("%s: %d nodes, %d deep", tc.name, len(tree.nodes), deepest)
		if deepest < 1000 && len(tree.nodes) < 1<<20 {
			t.Errorf("%s is neither deep nor huge", tc.name)
		}
		if strings.HasSuffix(tc.name, "unbalanced") != tree.Root().HasError() {
			t.Errorf("%s: root has error %v", tc.name, tree.Root().HasError())
		}
		tree.Close()
	}
}

// TestFlattenFastMatchesCursorMutated compares the two walks, and the fast
// walk with the binding, on randomly damaged copies of the flatten cases:
// ERROR and MISSING nodes in every grammar. It also compares them on trees
// that were edited and on incremental reparses, and some reparses with the
// binding's reparse of its own tree, edited alike.
func TestFlattenFastMatchesCursorMutated(t *testing.T) {
	if !fastPlatform {
		t.Skip("no fast walk on this platform")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const junk = "(){}[]<>;:,.=\"'`#$\n "
	for _, tc := range flattenCases {
		l := NewLanguage(tc.name, tc.grammar)
		for i := range 25 {
			src := []byte(tc.src)
			for range 1 + rng.IntN(4) {
				at := rng.IntN(len(src))
				if rng.IntN(2) == 0 {
					src = append(src[:at], src[at+1:]...)
				} else {
					src = append(src[:at], append([]byte{junk[rng.IntN(len(junk))]}, src[at:]...)...)
				}
			}
			tree, err := l.Parse(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s-%d", tc.name, i)
			compareWalks(t, name, tree)
			var bt *sitter.Tree
			if i%5 == 0 {
				bt = bindingParse(t, l, nil, src)
				t.Run(name, func(t *testing.T) { compareWalksWithBinding(t, l, tree, bt) })
			}
			// Insert a byte at the start and reparse: positions shift and
			// most subtrees are reused.
			newSrc := append([]byte(" "), src...)
			e := Edit{Start: 0, OldEnd: 0, NewEnd: 1, NewEndPoint: analysis.Point{Col: 1}}
			re, err := l.Reparse(context.Background(), tree, newSrc, e)
			if err != nil {
				t.Fatal(err)
			}
			compareWalks(t, name+"-edited", tree)
			compareWalks(t, name+"-reparsed", re)
			if bt != nil {
				// The binding edits and reparses its own tree alike.
				edit(cTree(bt), e)
				bre := bindingParse(t, l, bt, newSrc)
				t.Run(name+"-reparsed", func(t *testing.T) { compareWalksWithBinding(t, l, re, bre) })
			}
			re.Close()
			tree.Close()
		}
	}
}

// resetSelfCheck forgets what the self-check learnt: every language is
// checked again and the fast walk is back on.
func resetSelfCheck() {
	langChecks.Clear()
	fastFlatten.Store(fastPlatform)
}

// isolateSelfCheck skips a self-check test where there is no fast walk, and
// leaves the self-check and its hook as it found them.
func isolateSelfCheck(t *testing.T) {
	t.Helper()
	if !fastPlatform {
		t.Skip("no fast walk on this platform")
	}
	t.Cleanup(func() {
		flattenHook = nil
		resetSelfCheck()
	})
}

// TestFlattenSelfCheck checks that the self-check trusts a correct fast walk
// after checkNodes nodes, that a difference turns the fast walk off for the
// process with results staying right, and that a trusted walk giving a
// wrong node count has that tree redone by the cursor.
func TestFlattenSelfCheck(t *testing.T) {
	isolateSelfCheck(t)
	l := NewLanguage("go", golang.GetLanguage())
	src := []byte(flattenCases[1].src)
	parse := func() *Tree {
		t.Helper()
		tree, err := l.Parse(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	compared := func() int64 {
		var n int64
		langChecks.Range(func(_, v any) bool {
			n += v.(*atomic.Int64).Load()
			return true
		})
		return n
	}

	// A correct walk earns trust.
	resetSelfCheck()
	for compared() < checkNodes {
		tree := parse()
		tree.Close()
	}
	if !fastFlatten.Load() {
		t.Fatal("the self-check turned a correct fast walk off")
	}

	// A trusted walk whose node count is wrong: the cursor redoes the tree.
	calls := 0
	flattenHook = func(nodes []flatNode, n int) int {
		calls++
		nodes[n-1].field++
		return n - 1
	}
	tree := parse()
	flattenHook = nil
	if calls != 1 || !fastFlatten.Load() {
		t.Fatalf("hook called %d times, fast walk on: %v; want 1, true", calls, fastFlatten.Load())
	}
	compareWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
	tree.Close()

	// A difference while checking: the fast walk goes off, results stay right.
	resetSelfCheck()
	flattenHook = func(nodes []flatNode, n int) int {
		nodes[n/2].field++
		return n
	}
	tree = parse()
	if fastFlatten.Load() {
		t.Fatal("the self-check kept a fast walk that differs from the cursor")
	}
	compareWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
	tree.Close()
	calls = 0
	flattenHook = func(nodes []flatNode, n int) int { calls++; return n }
	tree = parse()
	compareWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
	tree.Close()
	if calls != 0 {
		t.Fatal("the fast walk ran after the self-check turned it off")
	}
}

// TestFlattenFastMatchesCursorDirs compares the two walks on every source
// file, in any of the nine grammars, under the comma-separated directories
// of KAST_FLATTEN_DIRS.
func TestFlattenFastMatchesCursorDirs(t *testing.T) {
	dirs := os.Getenv("KAST_FLATTEN_DIRS")
	if dirs == "" || !fastPlatform {
		t.Skip("KAST_FLATTEN_DIRS is not set")
	}
	grammars := map[string]*sitter.Language{
		".go": golang.GetLanguage(), ".java": java.GetLanguage(), ".js": javascript.GetLanguage(),
		".mjs": javascript.GetLanguage(), ".cjs": javascript.GetLanguage(), ".kt": kotlin.GetLanguage(),
		".kts": kotlin.GetLanguage(), ".py": python.GetLanguage(), ".rb": ruby.GetLanguage(),
		".rs": rust.GetLanguage(), ".ts": typescript.GetLanguage(), ".tsx": tsx.GetLanguage(),
	}
	langs := map[string]*Language{}
	files := map[string]int{}
	for _, dir := range strings.Split(dirs, ",") {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			ext := filepath.Ext(p)
			g := grammars[ext]
			if err != nil || d.IsDir() || g == nil || !d.Type().IsRegular() {
				return nil
			}
			l := langs[ext]
			if l == nil {
				l = NewLanguage(ext, g)
				langs[ext] = l
			}
			tree := parseFile(t, l, p)
			if tree == nil {
				return nil
			}
			compareWalks(t, p, tree)
			tree.Close()
			files[ext]++
			return nil
		})
	}
	t.Logf("files compared: %v", files)
}

// TestFlattenSelfCheckBigFirstTree: a first tree larger than the check is
// trusted after comparing its first checkNodes nodes, and a difference among
// them still turns the fast walk off.
func TestFlattenSelfCheckBigFirstTree(t *testing.T) {
	isolateSelfCheck(t)
	l := NewLanguage("go", golang.GetLanguage())
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 400 {
		fmt.Fprintf(&src, "func f%d(a, b int) int { if a > b { return a - %d }; return g(b, a) }\n", i, i)
	}
	parse := func() *Tree {
		t.Helper()
		tree, err := l.Parse(context.Background(), []byte(src.String()))
		if err != nil {
			t.Fatal(err)
		}
		if tree.NodeCount() < 4*checkNodes {
			t.Fatalf("%d nodes: the source should be well past the check", tree.NodeCount())
		}
		return tree
	}

	resetSelfCheck()
	tree := parse()
	compareWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
	tree.Close()
	var compared int64
	langChecks.Range(func(_, v any) bool { compared += v.(*atomic.Int64).Load(); return true })
	if compared != checkNodes || !fastFlatten.Load() {
		t.Fatalf("after one big tree: %d nodes compared, fast walk on: %v; want %d, true", compared, fastFlatten.Load(), checkNodes)
	}

	resetSelfCheck()
	flattenHook = func(nodes []flatNode, n int) int {
		nodes[checkNodes-1].start++
		return n
	}
	tree = parse()
	flattenHook = nil
	if fastFlatten.Load() {
		t.Fatal("a difference inside the checked prefix kept the fast walk on")
	}
	compareWithBinding(t, l, tree, bindingParse(t, l, nil, tree.src))
	tree.Close()
}
