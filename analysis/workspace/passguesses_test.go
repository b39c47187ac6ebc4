package workspace_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// guessesFixture makes Go references left to the workspace-wide guesses of
// their names, more of them than the pass orders one by one: Zap has only
// methods (too many tie: no use), Zop five methods among many fields
// (the methods fit a call best), Zup five functions among many variables,
// one of the functions built for another platform.
func guessesFixture() string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/m\n")
	b.WriteString("-- use/use.go --\npackage use\n\nfunc Use() {\n\tmystery().Zap()\n\tmystery().Zop()\n\tZup()\n}\n")
	for i := range 80 {
		fmt.Fprintf(&b, "-- p%d/p.go --\npackage p%d\n\ntype T struct{ Zop int }\n\nfunc (T) Zap() {}\n\nvar Zup = 1\n", i, i)
	}
	for i := range 5 {
		name := "f.go"
		if i == 4 {
			name = "f_windows.go"
		}
		fmt.Fprintf(&b, "-- q%d/%s --\npackage q%d\n\ntype U struct{}\n\nfunc (U) Zop() {}\n\nfunc Zup() {}\n", i, name, i)
	}
	return b.String()
}

// The stored uses of references left to guesses are the best candidates
// Resolve orders, as References counts them, however many candidates.
func TestPassUsesOfManyGuessesEqualResolution(t *testing.T) {
	for _, shrunk := range []bool{false, true} {
		t.Run(fmt.Sprintf("shrunk=%v", shrunk), func(t *testing.T) {
			if shrunk {
				workspace.ShrinkPassBudgets(t)
			}
			ws, root := openArchive(t, txtar.Parse([]byte(guessesFixture())))
			if _, err := ws.ResolveUses(context.Background(), 2, nil); err != nil || !ws.UsesHold() {
				t.Fatalf("pass: %v, hold %v", err, ws.UsesHold())
			}
			compareStoredReferences(t, ws)
			// The fixture means what it says: Zop's and Zup's best guesses
			// are uses, Zap's are not.
			uses := map[string]int{}
			use := filepath.Join(root, "use", "use.go")
			ws.Resolver().FileUses(use, func(def resolve.DefID, ref resolve.Reference) {
				uses[ws.Resolver().DefinitionAt(use, ref.Span.Start)[0].Name]++
			})
			if uses["Zap"] != 0 || uses["Zop"] != 5 || uses["Zup"] != 5 {
				t.Errorf("uses by name %v, want Zop's 5 methods and Zup's 5 functions", uses)
			}
		})
	}
}
