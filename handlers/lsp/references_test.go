package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/host"
)

var overloadFiles = map[string]string{
	"src/web/Router.kt": "package web\n\nclass Router {\n    fun pick(key: String): Int = 1\n    fun pick(index: Int): Int = 2\n}\n",
	"src/web/Use.kt":    "package web\n\nfun use(r: Router, n: Int) {\n    r.pick(\"a\")\n    r.pick(n)\n    r.pick(System.getProperty(\"n\"))\n}\n",
}

// References of one overload list its own calls, never those bound to the
// other; a call that fits both alike is listed under each, marked
// ambiguous in data, whether read from the stored uses or resolved anew.
func TestLSPReferencesMarkAmbiguousOverloadCalls(t *testing.T) {
	e := startLSP(t, overloadFiles)
	type ref struct {
		URI   string    `json:"uri"`
		Range wireRange `json:"range"`
		Data  *struct {
			Ambiguous bool `json:"ambiguous"`
		} `json:"data"`
	}
	check := func(when string, line int, want map[int]bool) {
		t.Helper()
		params := e.at("src/web/Router.kt", line, 8)
		params["context"] = map[string]bool{"includeDeclaration": false}
		var refs []ref
		if err := e.client.Call(e.ctx, "textDocument/references", params, &refs); err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		for _, r := range refs {
			got[r.Range.Start.Line] = r.Data != nil && r.Data.Ambiguous
		}
		if len(got) != len(want) {
			t.Fatalf("%s: references of the overload on line %d = %+v, want lines→ambiguous %v", when, line+1, refs, want)
		}
		for l, amb := range want {
			if a, ok := got[l]; !ok || a != amb {
				t.Errorf("%s: overload on line %d: use on line %d listed %v ambiguous %v, want ambiguous %v", when, line+1, l+1, ok, a, amb)
			}
		}
	}
	e.reindex()
	check("stored", 3, map[int]bool{3: false, 5: true})
	check("stored", 4, map[int]bool{4: false, 5: true})
	// Use.kt open with a comment added: its uses are resolved anew.
	text := overloadFiles["src/web/Use.kt"] + "// edited\n"
	if err := e.client.DidOpen(e.uri("src/web/Use.kt"), "kotlin", 1, text); err != nil {
		t.Fatal(err)
	}
	check("resolved", 3, map[int]bool{3: false, 5: true})
	check("resolved", 4, map[int]bool{4: false, 5: true})
}

// While a root's first index runs, requests that list every use wait for
// it instead of answering from the files indexed so far: an incomplete
// list of references looks complete, and a rename from it would leave the
// other files broken. Definitions do not wait. A waiting request can be
// cancelled.
func TestLSPWholeWorkspaceAnswersWaitForTheFirstIndex(t *testing.T) {
	gate := make(chan struct{})
	files := map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"a/a.go":  "package a\n\nfunc Shared() int { return 1 }\n",
		"b/b.go":  "package b\n\nimport \"example.com/m/a\"\n\nfunc Use() int { return a.Shared() }\n",
		"c/c.go":  "package c\n\nimport \"example.com/m/a\"\n\nfunc More() int { return a.Shared() + 1 }\n",
		"d/d.go":  "package d\n\nfunc Other() {}\n",
		"d/d2.go": "package d\n\nfunc Again() { Other() }\n",
	}
	e := startLSPWith(t, files, host.Options{IndexGate: gate})
	if err := e.client.DidOpen(e.uri("a/a.go"), "go", 1, files["a/a.go"]); err != nil {
		t.Fatal(err)
	}
	refsParams := e.at("a/a.go", 2, 6)
	refsParams["context"] = map[string]bool{"includeDeclaration": false}
	renameParams := e.at("a/a.go", 2, 6)
	renameParams["newName"] = "Common"
	_, refs := e.client.Go("textDocument/references", refsParams)
	_, rename := e.client.Go("textDocument/rename", renameParams)
	cancelID, cancelled := e.client.Go("textDocument/references", refsParams)

	// A definition in the open document answers while the index is held.
	if _, err := e.definition(e.at("a/a.go", 2, 6)); err != nil {
		t.Fatalf("definition while the first index is held: %v", err)
	}
	select {
	case m := <-refs:
		t.Fatalf("references answered before the first index ended: %s", m.Result)
	case m := <-rename:
		t.Fatalf("rename answered before the first index ended: %s", m.Result)
	default:
	}
	if err := e.client.Cancel(cancelID); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-cancelled:
		if m.Error == nil || m.Error.Code != -32800 {
			t.Fatalf("cancelled references while waiting = %s %+v, want error -32800", m.Result, m.Error)
		}
	case <-e.ctx.Done():
		t.Fatal("a cancelled references request kept waiting")
	}
	close(gate)

	var got []wireLoc
	select {
	case m := <-refs:
		if m.Error != nil {
			t.Fatalf("references: %+v", m.Error)
		}
		if err := json.Unmarshal(m.Result, &got); err != nil {
			t.Fatal(err)
		}
	case <-e.ctx.Done():
		t.Fatal("references never answered after the first index")
	}
	var paths []string
	for _, l := range got {
		paths = append(paths, rel0(e, l.URI))
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"b/b.go", "c/c.go"}) {
		t.Errorf("references once indexed = %v, want the uses in b/b.go and c/c.go", paths)
	}
	select {
	case m := <-rename:
		var edit struct {
			Changes map[string][]json.RawMessage `json:"changes"`
		}
		if m.Error != nil || json.Unmarshal(m.Result, &edit) != nil {
			t.Fatalf("rename: %s %+v", m.Result, m.Error)
		}
		var changed []string
		for u := range edit.Changes {
			changed = append(changed, rel0(e, u))
		}
		slices.Sort(changed)
		if !slices.Equal(changed, []string{"a/a.go", "b/b.go", "c/c.go"}) {
			t.Errorf("rename once indexed edits %v, want a/a.go, b/b.go and c/c.go", changed)
		}
	case <-e.ctx.Done():
		t.Fatal("rename never answered after the first index")
	}
}

// rel0 names a file URI relative to the test's root.
func rel0(e *lspEnv, u string) string {
	r, err := filepath.Rel(e.root, uri.URI(u).FsPath())
	if err != nil {
		return u
	}
	return filepath.ToSlash(r)
}
