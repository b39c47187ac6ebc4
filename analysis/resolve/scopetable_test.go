package resolve

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// A generated file's shape: thousands of parameters of few names, each in
// its own scope, beside top-level names some of which repeat.
func scopedDefsFile(n int) *analysis.FileFacts {
	f := &analysis.FileFacts{Path: "gen.go", Lang: "go"}
	for i := range n {
		scope, name := int32(i%(n/4)), fmt.Sprintf("p%d", i%7)
		if i%5 == 0 {
			scope, name = analysis.None, fmt.Sprintf("Top%d", i%50)
		}
		f.Defs = append(f.Defs, analysis.Def{Name: name, Scope: scope, Kind: analysis.KindParameter})
	}
	return f
}

// The scope table answers what a scan of the definitions answers, in the
// definitions' order, for names declared and not.
func TestScopeTableAnswersAsAScan(t *testing.T) {
	f := scopedDefsFile(4000)
	table := newScopeTable(f)
	for scope := int32(-1); scope < 1001; scope++ {
		for _, name := range []string{"p0", "p3", "p6", "Top0", "Top49", "absent"} {
			want := definedAs(f, func(d *analysis.Def) bool { return d.Scope == scope && d.Name == name })
			got := table.named(f, scopedName{scope, name})
			if !slices.Equal(got, want) {
				t.Fatalf("scope %d name %s: %v, want %v", scope, name, got, want)
			}
			if len(got) != cap(got) {
				t.Fatalf("scope %d name %s: a result with room to append into the table", scope, name)
			}
		}
	}
}

// Building a file's scope table allocates its indexes only: a map by scope
// and name took some 60 bytes a definition, rebuilt for each file a
// resolver reads.
func TestScopeTableAllocatesItsIndexesOnly(t *testing.T) {
	f := scopedDefsFile(4000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	table := newScopeTable(f)
	runtime.ReadMemStats(&after)
	if bytes := after.TotalAlloc - before.TotalAlloc; bytes > 8*uint64(len(f.Defs)) {
		t.Errorf("building the table of %d definitions allocated %d bytes, want at most 8 a definition", len(f.Defs), bytes)
	}
	runtime.KeepAlive(table)
}
