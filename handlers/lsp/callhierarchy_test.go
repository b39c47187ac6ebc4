package lsp

import (
	"encoding/json"
	"testing"
)

// Incoming calls of one overload list the callers whose calls bind to it;
// a caller whose call fits another overload as well is listed too, its
// item marked ambiguous in data, as references mark such a use.
func TestLSPIncomingCallsMarkAmbiguousOverloadCalls(t *testing.T) {
	e := startLSP(t, map[string]string{
		"src/web/Router.kt": "package web\n\nclass Router {\n    fun pick(key: String): Int = 1\n    fun pick(index: Int): Int = 2\n}\n",
		"src/web/Use.kt": "package web\n\nfun sure(r: Router) {\n    r.pick(\"a\")\n}\n\nfun other(r: Router) {\n    r.pick(2)\n}\n\n" +
			"fun unsure(r: Router) {\n    r.pick(System.getProperty(\"n\"))\n}\n",
	})
	e.reindex()
	var items []json.RawMessage
	if err := e.client.Call(e.ctx, "textDocument/prepareCallHierarchy", e.at("src/web/Router.kt", 3, 8), &items); err != nil || len(items) != 1 {
		t.Fatalf("prepareCallHierarchy = %s, %v", items, err)
	}
	var calls []struct {
		From struct {
			Name string `json:"name"`
			Data *struct {
				Ambiguous bool `json:"ambiguous"`
			} `json:"data"`
		} `json:"from"`
	}
	if err := e.client.Call(e.ctx, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range calls {
		got[c.From.Name] = c.From.Data != nil && c.From.Data.Ambiguous
	}
	if want := map[string]bool{"sure": false, "unsure": true}; len(got) != len(want) || got["sure"] || !got["unsure"] {
		t.Errorf("incoming calls of pick(String): callers → ambiguous %v, want %v", got, want)
	}
}
