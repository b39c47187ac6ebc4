package symbolquery

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/internal/wstest"
	"github.com/kast-dev/kast/analysis/workspace"
)

func coupling(t *testing.T) (*workspace.Snapshot, string) {
	t.Helper()
	ws, root := wstest.Open(t, filepath.Join("..", "..", "testdata", "kast", "coupling.txtar"))
	return wstest.Snapshot(ws), root
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"parseHTTPRequest": {"parse", "httprequest"}, "store.Sum": {"store", "sum"}, "snake_case x2": {"snake_case", "x2"}, "": nil,
	} {
		if got := Words(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func fqNames(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.FQName)
	}
	return out
}

func TestRun(t *testing.T) {
	ctx := context.Background()
	snap, root := coupling(t)
	g, err := graph.Build(ctx, snap, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{ModeExact, ModeLexical, ModeStructural, ModeGraph}
	run := func(q Query) Answer {
		t.Helper()
		if q.Modes == nil {
			q.Modes = all
		}
		q.Limit, q.Evidence = max(q.Limit, 25), true
		ans, err := Run(ctx, g, q)
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}

	// Exact first (1 + 0.7 + 0.2), then lexical only (0.7 + 0.2).
	ans := run(Query{Text: "Sum"})
	if got := fqNames(ans.Results); !slices.Equal(got, []string{"store.Sum"}) {
		t.Fatalf("query Sum: %q", got)
	}
	if r := ans.Results[0]; r.Score != 1.9 || !r.ExactMatched || r.ExactMatches[0].MatchType != "SIMPLE_NAME_EQUALS" || r.Position != 1 || r.Kind != "FUNCTION" {
		t.Errorf("store.Sum: %+v", r)
	}
	ans = run(Query{Text: "app", Filters: Filters{Kinds: []string{"FUNCTION"}, FileGlob: ptr("**/*.go")}})
	if got := fqNames(ans.Results); !slices.Equal(got, []string{"app.Total"}) || len(ans.HardFilters) != 2 || ans.HardFilters[0].Field != "fileGlob" {
		t.Errorf("Go functions matching app: %q, filters %+v", got, ans.HardFilters)
	}
	ans = run(Query{Text: "hidden", Filters: Filters{Visibility: []string{"PUBLIC"}}})
	if len(ans.Results) != 0 {
		t.Errorf("public declarations named hidden: %q", fqNames(ans.Results))
	}

	// An anchor alone selects by graph evidence: the callers of Sum.
	ans = run(Query{Anchor: &Anchor{FQName: "store.Sum"}, Graph: graph.RelatedOptions{Depth: 1, Direction: graph.Incoming, MaxEdges: 5}})
	if got := fqNames(ans.Results); !slices.Equal(got, []string{"app.Total", "store.local"}) {
		t.Errorf("around store.Sum, incoming: %q", got)
	}
	if p := ans.Results[0].GraphPaths; len(p) != 2 || p[0].From != "app.Total" || p[0].To != "store.Sum" || p[0].Kind != "CALL" {
		t.Errorf("evidence of app.Total: %+v", p)
	}
	if _, err := Run(ctx, g, Query{Anchor: &Anchor{Symbol: "nothing"}, Limit: 5}); !errors.Is(err, ErrAnchorNotFound) {
		t.Errorf("unknown anchor: %v", err)
	}
}

func TestCandidates(t *testing.T) {
	snap, root := coupling(t)
	text := func(p string) []byte { b, _ := os.ReadFile(p); return b }
	cs, err := Candidates(context.Background(), snap, root, text, Selector{Name: "s", Kind: "function", Snippet: ptr("hidden()")})
	if err != nil {
		t.Fatal(err)
	}
	// Every function whose name holds an s scores 20+10+15; shown's line
	// also calls hidden: +2.
	if len(cs) < 3 || cs[0].FQName != "lib.shown" || cs[0].Score != 47 {
		t.Fatalf("candidates: %+v", cs)
	}
	best, count, alts := Pick(cs)
	if best.FQName != "lib.shown" || count == nil || *count != len(cs) || len(alts) != min(3, len(cs)-1) {
		t.Errorf("Pick: %v %v %v", best, count, alts)
	}
	if _, count, alts := Pick(cs[:1]); count != nil || alts != nil {
		t.Errorf("Pick of one: %v %v", count, alts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Candidates(ctx, snap, root, text, Selector{Name: "s"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
