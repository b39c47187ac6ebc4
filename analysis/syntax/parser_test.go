package syntax

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/python"
)

// onlyParser returns the one parser in l's pool, which it leaves there.
func onlyParser(t *testing.T, l *Language) *parser {
	t.Helper()
	if n := len(l.parsers.free); n != 1 {
		t.Fatalf("%d parsers in the pool, want 1", n)
	}
	p := <-l.parsers.free
	l.parsers.free <- p
	return p
}

// TestLateCancelNeverFailsLaterParse parses short sources with contexts
// cancelled right after the parse returns or at about the time it ends, so
// that cancellation callbacks run during, after and around the end of
// parses. Whatever happened to one parse, the flag of the one pooled parser
// must be down afterwards and the next parse must succeed: a callback that
// raised it late would fail that parse.
func TestLateCancelNeverFailsLaterParse(t *testing.T) {
	l := NewLanguage("go", golang.GetLanguage())
	src := []byte(flattenCases[1].src)
	var cancelled int
	for i := range 3000 {
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 1 {
			go cancel()
		}
		tree, err := l.Parse(ctx, src)
		cancel()
		switch {
		case err == nil:
			tree.Close()
		case i%2 == 1 && errors.Is(err, context.Canceled):
			cancelled++
		default:
			t.Fatalf("parse %d: %v", i, err)
		}
		p := onlyParser(t, l)
		if *p.cancel != 0 {
			t.Fatalf("parse %d left the cancellation flag at %d", i, *p.cancel)
		}
		// The same parser parses next, and must not see a raised flag.
		ctx, cancel = context.WithCancel(context.Background())
		tree, err = l.Parse(ctx, src)
		cancel()
		if err != nil {
			t.Fatalf("parse after parse %d: %v", i, err)
		}
		if onlyParser(t, l) != p {
			t.Fatal("the pool handed out another parser")
		}
		tree.Close()
	}
	t.Logf("%d of 1500 parses cancelled", cancelled)
}

// TestCancelMidParseLowersFlag cancels a long parse and checks that the
// parser it used is back in the pool with its flag down and parses afresh.
func TestCancelMidParseLowersFlag(t *testing.T) {
	l := NewLanguage("go", golang.GetLanguage())
	p := l.parsers.get()
	l.parsers.put(p)
	big := []byte("package p\n" + strings.Repeat("func f() { x := []int{1, 2, 3}; _ = x }\n", 200_000))
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(10*time.Millisecond, cancel)
	defer timer.Stop()
	if _, err := l.Parse(ctx, big); !errors.Is(err, context.Canceled) {
		t.Fatalf("parse cancelled midway: %v", err)
	}
	if onlyParser(t, l) != p || *p.cancel != 0 {
		t.Fatalf("after the cancelled parse: same parser %v, flag %d", onlyParser(t, l) == p, *p.cancel)
	}
	tree, err := l.Parse(context.Background(), []byte("package q\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if root := tree.Root(); root.End() != 10 || root.HasError() || onlyParser(t, l) != p {
		t.Errorf("parse after cancel: root [%d,%d), has error %v", root.Start(), root.End(), root.HasError())
	}
}

// TestLanguageMirror checks that cLanguage reads the grammar the binding
// itself parses with, and cTree the binding's tree: the grammar of a tree
// the binding parsed must be cLanguage of the binding's Language.
func TestLanguageMirror(t *testing.T) {
	seen := map[any]string{}
	for _, tc := range flattenCases {
		l := NewLanguage(tc.name, tc.grammar)
		bt := bindingParse(t, l, nil, []byte(tc.src))
		want := cLanguage(tc.grammar)
		if got := treeLanguage(cTree(bt)); got != want {
			t.Errorf("%s: the binding's tree has grammar %p, cLanguage gives %p", tc.name, got, want)
		}
		tree, err := l.Parse(context.Background(), []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := treeLanguage(tree.tree); got != want {
			t.Errorf("%s: our tree has grammar %p, want %p", tc.name, got, want)
		}
		tree.Close()
		seen[want] = tc.name
	}
	if cLanguage(golang.GetLanguage()) == cLanguage(python.GetLanguage()) || len(seen) < 5 {
		t.Errorf("cLanguage does not tell grammars apart: %v", seen)
	}
}

// fieldID must agree with the grammar's map whatever the address of the
// name: literals, copies that land in taken slots, unknown names.
func TestFieldIDMatchesGrammar(t *testing.T) {
	l := NewLanguage("go", golang.GetLanguage())
	if len(l.fieldIDs) < 10 {
		t.Fatalf("only %d fields", len(l.fieldIDs))
	}
	for round := range 3 {
		for name, want := range l.fieldIDs {
			for _, n := range []string{name, strings.Clone(name), (" " + name + " ")[1 : len(name)+1]} {
				if got := l.fieldID(n); got != want {
					t.Fatalf("round %d: fieldID(%q) = %d, want %d", round, n, got, want)
				}
			}
		}
		for _, n := range []string{"no_such_field", strings.Clone("nope"), ""} {
			if got := l.fieldID(n); got != 0 {
				t.Fatalf("fieldID(%q) = %d, want 0", n, got)
			}
		}
	}
}
