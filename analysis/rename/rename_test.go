package rename

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
)

// snapshot is a workspace of extracted files in memory.
type snapshot struct {
	*resolve.Memory
	r *resolve.Resolver
}

func (s snapshot) Resolver() *resolve.Resolver  { return s.r }
func (s snapshot) InWorkspace(path string) bool { return s.File(path) != nil }

func newSnapshot(t *testing.T, files map[string]string) snapshot {
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
	return snapshot{m, resolve.New(m)}
}

const router = `package web

class Router {
    fun route(path: String): Router = this
    fun route(code: Int): Router = this
    fun pick(x: String): Int = 1
    fun pick(x: Int): Int = 2
}

fun wire(r: Router) {
    r.route("/home")
    r.route(404)
    r.pick(System.getProperty("n"))
}
`

// Renaming one overload edits its declaration and its own calls only: the
// audit's route(String) rename must leave route(404) alone.
func TestRenameOneOverload(t *testing.T) {
	s := newSnapshot(t, map[string]string{"web/Router.kt": router})
	edits, err := Rename(s, "web/Router.kt", strings.Index(router, "route(path"), "path")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, e := range edits {
		lines = append(lines, e.Span.StartPoint.Line+1)
	}
	if len(lines) != 2 || lines[0] != 4 || lines[1] != 11 {
		t.Errorf("rename of route(String) edits lines %v, want [4 11]", lines)
	}
}

// A call its arguments bind to two overloads alike is not edited: the
// rename is refused and names the candidates.
func TestRenameRefusesAmbiguousCall(t *testing.T) {
	s := newSnapshot(t, map[string]string{"web/Router.kt": router})
	_, err := Rename(s, "web/Router.kt", strings.Index(router, "pick(x: String)"), "choose")
	var refused *Error
	if !errors.As(err, &refused) {
		t.Fatalf("rename of pick(String) = %v, want a refusal", err)
	}
	if !strings.Contains(refused.Msg, "fun pick(x: String)") || !strings.Contains(refused.Msg, "fun pick(x: Int)") {
		t.Errorf("refusal %q does not name both overloads", refused.Msg)
	}
}

const bag = `package web

class Bag {
    operator fun contains(x: String): Boolean = true
    fun has(x: String): Boolean = contains(x)
}

fun check(b: Bag): Boolean = "k" in b
`

// An operator function used through its operator (`"k" in b` calls
// contains) is not renamed: the new name would leave `in` unbound.
func TestRenameRefusesOperatorUse(t *testing.T) {
	s := newSnapshot(t, map[string]string{"web/Bag.kt": bag})
	_, err := Rename(s, "web/Bag.kt", strings.Index(bag, "contains(x: String)"), "holds")
	var refused *Error
	if !errors.As(err, &refused) || !strings.Contains(refused.Msg, "operator at web/Bag.kt:8") {
		t.Fatalf("rename of an operator's contains = %v, want a refusal naming the `in` at line 8", err)
	}
	edits, err := Rename(s, "web/Bag.kt", strings.Index(bag, "has(x"), "holds")
	if err != nil || len(edits) != 1 {
		t.Errorf("rename of has = %v, %v; want its declaration alone", edits, err)
	}
}
