package hierarchy_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/hierarchy"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
)

// memory is a snapshot over extracted sources, with one resolver.
type memory struct {
	*resolve.Memory
	r *resolve.Resolver
}

func (m memory) Resolver() *resolve.Resolver { return m.r }

func snapshot(t *testing.T, files map[string]string) memory {
	t.Helper()
	var facts []*analysis.FileFacts
	for path, src := range files {
		f, err := lang.Extract(context.Background(), path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		facts = append(facts, f)
	}
	m := resolve.NewMemory(facts...)
	return memory{m, resolve.New(m)}
}

// def finds a top-level definition by name.
func def(t *testing.T, s memory, path, name string) resolve.DefID {
	t.Helper()
	f := s.File(path)
	for i, d := range f.Defs {
		if d.Name == name && d.Container == analysis.None {
			return resolve.DefID{Path: path, Index: int32(i)}
		}
	}
	t.Fatalf("%s: no top-level %s", path, name)
	return resolve.DefID{}
}

func (m memory) name(id resolve.DefID) string {
	if id.Index == analysis.None {
		return filepath.Base(id.Path)
	}
	return m.File(id.Path).Defs[id.Index].Name
}

// callTree renders a call tree one node a line, indented by level: the
// definition, the call site's file and line, and any truncation.
func (m memory) callTree(n *hierarchy.CallNode) string {
	var b strings.Builder
	var walk func(n *hierarchy.CallNode, level int)
	walk = func(n *hierarchy.CallNode, level int) {
		b.WriteString(strings.Repeat("  ", level) + m.name(n.Def))
		if n.Site != nil {
			fmt.Fprintf(&b, " @%s:%d", filepath.Base(n.Site.Path), n.Site.Span.StartPoint.Line+1)
		}
		if n.Truncation != hierarchy.NotTruncated {
			b.WriteString(" [" + n.Truncation.String() + "]")
		}
		b.WriteString("\n")
		for _, c := range n.Children {
			walk(c, level+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// typeTree renders a type tree like callTree, supertypes marked ^.
func (m memory) typeTree(n *hierarchy.TypeNode) string {
	var b strings.Builder
	var walk func(n *hierarchy.TypeNode, level int)
	walk = func(n *hierarchy.TypeNode, level int) {
		b.WriteString(strings.Repeat("  ", level))
		if n.Supertype {
			b.WriteString("^")
		}
		b.WriteString(m.name(n.Def))
		if n.Truncation != hierarchy.NotTruncated {
			b.WriteString(" [" + n.Truncation.String() + "]")
		}
		b.WriteString("\n")
		for _, c := range n.Children {
			walk(c, level+1)
		}
	}
	walk(n, 0)
	return b.String()
}

const recursion = `def ping(n):
    return pong(n - 1)


def pong(n):
    return ping(n - 1)


def countdown(n):
    if n > 0:
        countdown(n - 1)
    return n
`

const fanOut = `def leaf1():
    return 1


def leaf2():
    return 2


def leaf3():
    return 3


def hub():
    leaf3()
    leaf1()
    leaf2()
    leaf1()


def top():
    hub()
    leaf2()


leaf1()
`

var wide = hierarchy.CallBounds{Depth: 10, MaxTotalCalls: 100, MaxChildrenPerNode: 100}

func calls(t *testing.T, s memory, root resolve.DefID, dir hierarchy.Direction, b hierarchy.CallBounds) *hierarchy.CallTree {
	t.Helper()
	tree, err := hierarchy.Calls(context.Background(), s, root, dir, b)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func checkTree(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\ngot\n%s\nwant\n%s", what, got, want)
	}
}

// Mutual recursion ends where a definition comes back on its own path, in
// both directions; the cycle node is listed, not expanded.
func TestCallsMutualRecursion(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/rec.py": recursion})
	ping := def(t, s, "/w/rec.py", "ping")

	out := calls(t, s, ping, hierarchy.Outgoing, wide)
	checkTree(t, "outgoing from ping", s.callTree(out.Root), "ping\n  pong @rec.py:2\n    ping @rec.py:6 [cycle]\n")
	want := hierarchy.CallStats{Nodes: 3, Edges: 2, TruncatedNodes: 1, MaxDepth: 1, FilesVisited: 1}
	if out.Stats != want {
		t.Errorf("outgoing stats: got %+v, want %+v", out.Stats, want)
	}

	in := calls(t, s, ping, hierarchy.Incoming, wide)
	checkTree(t, "incoming to ping", s.callTree(in.Root), "ping\n  pong @rec.py:6\n    ping @rec.py:2 [cycle]\n")
}

// A self-recursive function's only child is itself, marked as a cycle.
func TestCallsSelfRecursion(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/rec.py": recursion})
	countdown := def(t, s, "/w/rec.py", "countdown")
	for _, dir := range []hierarchy.Direction{hierarchy.Outgoing, hierarchy.Incoming} {
		tree := calls(t, s, countdown, dir, wide)
		checkTree(t, fmt.Sprint("direction ", dir), s.callTree(tree.Root), "countdown\n  countdown @rec.py:11 [cycle]\n")
		if tree.Stats.Nodes != 2 || tree.Stats.Edges != 1 || tree.Stats.TruncatedNodes != 1 {
			t.Errorf("direction %d: stats %+v", dir, tree.Stats)
		}
	}
}

// A definition reached twice off the path (leaf1 called twice by hub) is
// two nodes, neither a cycle; children follow their call sites' order.
func TestCallsOneNodePerSiteInSiteOrder(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/fan.py": fanOut})
	tree := calls(t, s, def(t, s, "/w/fan.py", "top"), hierarchy.Outgoing, wide)
	checkTree(t, "outgoing from top", s.callTree(tree.Root),
		"top\n  hub @fan.py:21\n    leaf3 @fan.py:14\n    leaf1 @fan.py:15\n    leaf2 @fan.py:16\n    leaf1 @fan.py:17\n  leaf2 @fan.py:22\n")
	if tree.Stats.MaxDepth != 2 || tree.Stats.TruncatedNodes != 0 {
		t.Errorf("stats %+v", tree.Stats)
	}
}

// Callers across files come in file order; a call at the top level of a
// file is a leaf standing for the file.
func TestCallsIncomingAcrossFiles(t *testing.T) {
	s := snapshot(t, map[string]string{
		"/w/fan.py":   fanOut,
		"/w/b_use.py": "from fan import leaf2\n\n\ndef second():\n    return leaf2()\n",
		"/w/a_use.py": "from fan import leaf2\n\n\ndef first():\n    return leaf2()\n\n\nleaf2()\n",
	})
	tree := calls(t, s, def(t, s, "/w/fan.py", "leaf2"), hierarchy.Incoming, wide)
	checkTree(t, "incoming to leaf2", s.callTree(tree.Root),
		"leaf2\n  first @a_use.py:5\n  a_use.py @a_use.py:8\n  second @b_use.py:5\n  hub @fan.py:16\n    top @fan.py:21\n  top @fan.py:22\n")
	if tree.Stats.FilesVisited != 3 {
		t.Errorf("files visited: got %d, want 3", tree.Stats.FilesVisited)
	}
}

func TestCallsBounds(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/fan.py": fanOut})
	top := def(t, s, "/w/fan.py", "top")
	for _, c := range []struct {
		name   string
		bounds hierarchy.CallBounds
		tree   string
		stats  hierarchy.CallStats
	}{
		{"depth 0 lists the root alone", hierarchy.CallBounds{Depth: 0, MaxTotalCalls: 100, MaxChildrenPerNode: 100},
			"top\n", hierarchy.CallStats{Nodes: 1, FilesVisited: 1}},
		{"depth 1 lists the root's calls", hierarchy.CallBounds{Depth: 1, MaxTotalCalls: 100, MaxChildrenPerNode: 100},
			"top\n  hub @fan.py:21\n  leaf2 @fan.py:22\n", hierarchy.CallStats{Nodes: 3, Edges: 2, MaxDepth: 1, FilesVisited: 1}},
		{"children per node", hierarchy.CallBounds{Depth: 10, MaxTotalCalls: 100, MaxChildrenPerNode: 2},
			"top\n  hub @fan.py:21 [max children per node]\n    leaf3 @fan.py:14\n    leaf1 @fan.py:15\n  leaf2 @fan.py:22\n",
			hierarchy.CallStats{Nodes: 5, Edges: 4, TruncatedNodes: 1, MaxDepth: 2, MaxChildrenPerNodeReached: true, FilesVisited: 1}},
		{"total calls", hierarchy.CallBounds{Depth: 10, MaxTotalCalls: 3, MaxChildrenPerNode: 100},
			"top [max total calls]\n  hub @fan.py:21 [max total calls]\n    leaf3 @fan.py:14\n    leaf1 @fan.py:15\n",
			hierarchy.CallStats{Nodes: 4, Edges: 3, TruncatedNodes: 2, MaxDepth: 2, MaxTotalCallsReached: true, FilesVisited: 1}},
		{"the first reason stands", hierarchy.CallBounds{Depth: 10, MaxTotalCalls: 2, MaxChildrenPerNode: 1},
			"top [max children per node]\n  hub @fan.py:21 [max children per node]\n    leaf3 @fan.py:14\n",
			hierarchy.CallStats{Nodes: 3, Edges: 2, TruncatedNodes: 2, MaxDepth: 2, MaxChildrenPerNodeReached: true, FilesVisited: 1}},
		{"a passed deadline lists nothing", hierarchy.CallBounds{Depth: 10, MaxTotalCalls: 100, MaxChildrenPerNode: 100, Deadline: time.Unix(1, 0)},
			"top [timeout]\n", hierarchy.CallStats{Nodes: 1, TruncatedNodes: 1, TimeoutReached: true, FilesVisited: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree := calls(t, s, top, hierarchy.Outgoing, c.bounds)
			checkTree(t, "tree", s.callTree(tree.Root), c.tree)
			if tree.Stats != c.stats {
				t.Errorf("stats: got %+v, want %+v", tree.Stats, c.stats)
			}
		})
	}
}

func TestCallsStopWhenCancelled(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/fan.py": fanOut})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tree, err := hierarchy.Calls(ctx, s, def(t, s, "/w/fan.py", "top"), hierarchy.Outgoing, wide)
	if !errors.Is(err, context.Canceled) || tree != nil {
		t.Errorf("got %v, %v; want no tree and context.Canceled", tree, err)
	}
	_, err = hierarchy.Types(ctx, s, def(t, s, "/w/fan.py", "top"), hierarchy.Both, hierarchy.TypeBounds{Depth: 3, MaxResults: 10})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("types: got %v, want context.Canceled", err)
	}
}

// Broken code can make inheritance loop; a diamond reaches one type twice
// on different paths, which is no cycle.
const types = `class Base:
    pass


class Left(Base):
    pass


class Right(Base):
    pass


class Bottom(Left, Right):
    pass


class Egg(Chicken):
    pass


class Chicken(Egg):
    pass
`

func typeTree(t *testing.T, s memory, root resolve.DefID, dir hierarchy.TypeDirection, b hierarchy.TypeBounds) *hierarchy.TypeTree {
	t.Helper()
	tree, err := hierarchy.Types(context.Background(), s, root, dir, b)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestTypes(t *testing.T) {
	s := snapshot(t, map[string]string{"/w/types.py": types})
	at := func(name string) resolve.DefID { return def(t, s, "/w/types.py", name) }
	wide := hierarchy.TypeBounds{Depth: 10, MaxResults: 100}
	for _, c := range []struct {
		name  string
		root  string
		dir   hierarchy.TypeDirection
		b     hierarchy.TypeBounds
		tree  string
		stats hierarchy.TypeStats
	}{
		{"a loop is cut where it comes back", "Egg", hierarchy.Supertypes, wide,
			"Egg\n  ^Chicken\n    ^Egg [cycle]\n", hierarchy.TypeStats{Nodes: 3, MaxDepth: 1, Truncated: true}},
		{"and so downwards", "Egg", hierarchy.Subtypes, wide,
			"Egg\n  Chicken\n    Egg [cycle]\n", hierarchy.TypeStats{Nodes: 3, MaxDepth: 1, Truncated: true}},
		{"a diamond up", "Bottom", hierarchy.Supertypes, wide,
			"Bottom\n  ^Left\n    ^Base\n  ^Right\n    ^Base\n", hierarchy.TypeStats{Nodes: 5, MaxDepth: 2}},
		{"a diamond down", "Base", hierarchy.Subtypes, wide,
			"Base\n  Left\n    Bottom\n  Right\n    Bottom\n", hierarchy.TypeStats{Nodes: 5, MaxDepth: 2}},
		{"both: supertypes first", "Left", hierarchy.Both, wide,
			"Left\n  ^Base\n  Bottom\n", hierarchy.TypeStats{Nodes: 3, MaxDepth: 1}},
		{"depth", "Base", hierarchy.Subtypes, hierarchy.TypeBounds{Depth: 1, MaxResults: 100},
			"Base\n  Left\n  Right\n", hierarchy.TypeStats{Nodes: 3, MaxDepth: 1}},
		{"results run out under a child", "Base", hierarchy.Subtypes, hierarchy.TypeBounds{Depth: 10, MaxResults: 3},
			"Base\n  Left\n    Bottom\n  Right [max results]\n", hierarchy.TypeStats{Nodes: 4, MaxDepth: 2, Truncated: true}},
		{"results run out under the root", "Base", hierarchy.Subtypes, hierarchy.TypeBounds{Depth: 10, MaxResults: 2},
			"Base [max results]\n  Left\n    Bottom\n", hierarchy.TypeStats{Nodes: 3, MaxDepth: 2, Truncated: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree := typeTree(t, s, at(c.root), c.dir, c.b)
			checkTree(t, "tree", s.typeTree(tree.Root), c.tree)
			if tree.Stats != c.stats {
				t.Errorf("stats: got %+v, want %+v", tree.Stats, c.stats)
			}
		})
	}
}
