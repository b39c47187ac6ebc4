package graph_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/internal/wstest"
	"github.com/kast-dev/kast/analysis/workspace"
)

func open(t *testing.T, archive string) (*workspace.Workspace, string) {
	return wstest.Open(t, filepath.Join("..", "..", "testdata", "kast", archive))
}

func build(t *testing.T, ws *workspace.Workspace, root string) *graph.Graph {
	t.Helper()
	g, err := graph.Build(context.Background(), wstest.Snapshot(ws), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// edges renders a graph's edges as from → to kind, in the graph's order.
func edges(g *graph.Graph) []string {
	out := make([]string, len(g.Edges))
	for i, e := range g.Edges {
		from := g.FQName(e.From)
		if from == "" {
			from = filepath.Base(e.From.Path)
		}
		out[i] = fmt.Sprintf("%s → %s %s", from, g.FQName(e.To), e.Kind)
	}
	return out
}

// The graph is the same whether built by resolving every file or from the
// stored uses, and holds the certain references to outline declarations.
func TestBuildResolvedAndStored(t *testing.T) {
	ws, root := open(t, "coupling.txtar")
	resolved := build(t, ws, root)
	want := []string{
		"app.Holder → store.Cart TYPE_REF",
		"app.Total → store.Sum CALL",
		"app.Total → store.Sum CALL",
		"App.kt → lib.hidden IMPORT",
		"App.kt → lib.shown IMPORT",
		"app.run → lib.hidden CALL",
		"app.run → lib.shown CALL",
		"lib.shown → lib.hidden CALL",
		"store.Sum → util.Add CALL",
		"store.local → store.Sum CALL",
	}
	got := edges(resolved)
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("edges:\n got  %q\n want %q", got, want)
	}
	if resolved.Files != 5 || resolved.Total != 5 || resolved.Confidence("LOW").IndexCompleteness != 1 {
		t.Errorf("files %d of %d, want 5 of 5", resolved.Files, resolved.Total)
	}
	if _, err := ws.ResolveUses(context.Background(), 0, nil); err != nil || !ws.UsesHold() {
		t.Fatalf("storing uses: %v", err)
	}
	if stored := edges(build(t, ws, root)); !slices.Equal(stored, got) {
		t.Fatalf("from stored uses:\n got  %q\n want %q", stored, got)
	}
}

// A build whose context is done stops with its error.
func TestBuildCancelled(t *testing.T) {
	ws, root := open(t, "coupling.txtar")
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	_, err := graph.Build(ctx, wstest.Snapshot(ws), root, func(done, total int) {
		if steps++; steps == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || steps != 2 {
		t.Fatalf("cancelled at the second file: err %v after %d steps, want context.Canceled after 2", err, steps)
	}
}

func TestMetrics(t *testing.T) {
	ctx := context.Background()
	ws, root := open(t, "coupling.txtar")
	g := build(t, ws, root)
	all := func(string) bool { return true }

	in, err := g.FanIn(ctx, all, 3)
	if err != nil {
		t.Fatal(err)
	}
	var fanIn []string
	for _, r := range in {
		fanIn = append(fanIn, fmt.Sprintf("%s %d/%d %v", r.FQName, r.Occurrences, r.SourceFiles, r.ByEdgeKind))
	}
	if want := []string{"lib.hidden 3/2 map[CALL:2 IMPORT:1]", "store.Sum 3/2 map[CALL:3]", "lib.shown 2/1 map[CALL:1 IMPORT:1]"}; !slices.Equal(fanIn, want) {
		t.Errorf("fanIn:\n got  %q\n want %q", fanIn, want)
	}

	out, err := g.FanOut(ctx, graph.PathFilter(root, "**/*.kt", ""), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || filepath.Base(out[0].Path) != "App.kt" || out[0].Occurrences != 4 || out[0].TargetSymbols != 2 || out[0].TargetFiles != 1 {
		t.Errorf("fanOut of the Kotlin files: %+v", out)
	}

	dead, err := g.DeadCode(ctx, all, 100)
	if err != nil {
		t.Fatal(err)
	}
	var deadNames []string
	for _, d := range dead {
		deadNames = append(deadNames, d.FQName+" "+d.Visibility+" "+d.Level)
	}
	// local calls Sum, but nothing calls local; a struct field is a
	// declaration too.
	for _, want := range []string{"store.local PRIVATE HIGH", "app.run PUBLIC MEDIUM", "app.Total PUBLIC MEDIUM"} {
		if !slices.Contains(deadNames, want) {
			t.Errorf("deadCode lacks %q: %q", want, deadNames)
		}
	}
	for _, used := range []string{"store.Sum", "lib.hidden", "util.Add"} {
		if slices.ContainsFunc(deadNames, func(s string) bool { return s[:len(used)+1] == used+" " }) {
			t.Errorf("deadCode lists %s, which is referenced: %q", used, deadNames)
		}
	}

	impact, err := g.Impact(ctx, "util.Add", 3, all, 10)
	if err != nil {
		t.Fatal(err)
	}
	var reached []string
	for _, r := range impact {
		reached = append(reached, fmt.Sprintf("%s@%d via %s", filepath.Base(r.Path), r.Depth, r.Via))
	}
	if want := []string{"store.go@1 via util.Add", "app.go@2 via store.Sum"}; !slices.Equal(reached, want) {
		t.Errorf("impact of util.Add: %q, want %q", reached, want)
	}

	coupling, err := g.Coupling(ctx, all, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantCoupling := []graph.Coupling{
		{"src/main/kotlin/app", "main", "src/main/kotlin/lib", "main", 4, 2, 2, map[string]int{"CALL": 2, "IMPORT": 2}},
		{"app", "", "store", "", 3, 3, 0, map[string]int{"CALL": 2, "TYPE_REF": 1}},
		{"store", "", "util", "", 1, 1, 0, map[string]int{"CALL": 1}},
	}
	if !reflect.DeepEqual(coupling, wantCoupling) {
		t.Errorf("coupling:\n got  %+v\n want %+v", coupling, wantCoupling)
	}

	found, err := g.Search(ctx, "sum", all, 5)
	if err != nil || !slices.Equal(found, []string{"store.Sum"}) {
		t.Errorf("search sum: %q %v", found, err)
	}
	found, err = g.Search(ctx, "", all, 2)
	if err != nil || !slices.Equal(found, []string{"lib.hidden", "store.Sum"}) {
		t.Errorf("search with no query, the most referenced: %q %v", found, err)
	}

	n, err := g.Neighbourhood(ctx, "store.Sum", 1, all, 10)
	if err != nil {
		t.Fatal(err)
	}
	var nodes, links []string
	for _, node := range n.Nodes {
		nodes = append(nodes, fmt.Sprintf("%s@%d", node.FQName, node.Depth))
	}
	for _, l := range n.Links {
		links = append(links, fmt.Sprintf("%s → %s %s ×%d", l.From, l.To, l.Kind, l.Occurrences))
	}
	if want := []string{"store.Sum@0", "app.Total@1", "util.Add@1", "store.local@1"}; !slices.Equal(nodes, want) || n.Truncated {
		t.Errorf("nodes around store.Sum: %q (truncated %v), want %q", nodes, n.Truncated, want)
	}
	if want := []string{"app.Total → store.Sum CALL ×2", "store.Sum → util.Add CALL ×1", "store.local → store.Sum CALL ×1"}; !slices.Equal(links, want) {
		t.Errorf("links around store.Sum: %q, want %q", links, want)
	}

	sum := g.Named("store.Sum")
	if len(sum) != 1 || !slices.Equal(g.Named("Sum"), sum) {
		t.Fatalf("Named: %v %v", sum, g.Named("Sum"))
	}
	related, err := g.Related(ctx, sum, graph.RelatedOptions{Depth: 1, Direction: graph.Incoming, MaxEdges: 1})
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	for id, paths := range related {
		callers = append(callers, fmt.Sprintf("%s %d", g.FQName(id), len(paths)))
	}
	slices.Sort(callers)
	if want := []string{"app.Total 1", "store.local 1"}; !slices.Equal(callers, want) {
		t.Errorf("incoming around store.Sum, one path each: %q, want %q", callers, want)
	}
}
