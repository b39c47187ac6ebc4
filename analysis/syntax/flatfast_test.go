// The fast flattener against the cursor walk: the standard library, extreme
// and mutated trees, and its self-check.

package syntax

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
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
