package lsp

import (
	"testing"
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
