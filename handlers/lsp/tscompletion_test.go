package lsp

import (
	"slices"
	"strings"
	"testing"
)

// A client sorts TypeScript's bare names by sortText: the names in scope
// by name, as tsserver sorts them, whatever their scope distance (a
// parameter is no nearer than the file's constants).
func TestLSPTypeScriptNamesSortTextByName(t *testing.T) {
	e := startLSP(t, map[string]string{
		"package.json": `{"name": "app"}`,
		"merge.ts":     "const replaceSymbol = Symbol('r');\nexport function merge(returnValue: unknown[]) {\n\treturn [...r];\n}\n",
	})
	e.reindex()
	var list struct {
		Items []struct {
			Label    string `json:"label"`
			SortText string `json:"sortText"`
		} `json:"items"`
	}
	if err := e.client.Call(e.ctx, "textDocument/completion", e.at("merge.ts", 2, 13), &list); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(list.Items, func(a, b struct {
		Label    string `json:"label"`
		SortText string `json:"sortText"`
	}) int {
		return strings.Compare(a.SortText, b.SortText)
	})
	var labels []string
	for _, it := range list.Items {
		if strings.HasPrefix(it.Label, "re") {
			labels = append(labels, it.Label)
		}
	}
	if len(labels) < 2 || labels[0] != "replaceSymbol" || labels[1] != "returnValue" {
		t.Errorf("by sortText: %v, want replaceSymbol, returnValue first", labels)
	}
}
