package lsp

import (
	"strings"
	"testing"
)

// Go completions that compile: another package's unexported members are
// not offered after the dot; a receiver's methods only after the receiver;
// at the start of a statement the keyword the prefix starts comes first;
// values, then functions, by name; isIncomplete only when items were cut.
func TestLSPGoCompletionThatCompiles(t *testing.T) {
	e := startLSP(t, map[string]string{
		"go.mod":        "module example.com/c\n",
		"shop/shop.go":  "package shop\n\ntype Shop struct {\n\tName   string\n\tsecret int\n}\n\nfunc (s *Shop) Open() {}\n\nfunc (s *Shop) close() {}\n",
		"main.go":       "package main\n\nimport \"example.com/c/shop\"\n\ntype Cart struct{ items []int }\n\nfunc (c *Cart) Add(n int) {}\n\nfunc (c *Cart) Total(retries int) int {\n\tvar s shop.Shop\n\ts.\n\tret\n\tc.\n\treturn retries\n}\n",
		"cart_extra.go": "package main\n\nfunc (c *Cart) Remove(n int) {}\n",
	})
	e.reindex()
	type item struct {
		Label    string `json:"label"`
		SortText string `json:"sortText"`
	}
	complete := func(line, char int) ([]string, bool) {
		var list struct {
			IsIncomplete bool   `json:"isIncomplete"`
			Items        []item `json:"items"`
		}
		if err := e.client.Call(e.ctx, "textDocument/completion", e.at("main.go", line, char), &list); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		return labels, list.IsIncomplete
	}
	if got, inc := complete(10, 3); strings.Join(got, " ") != "Name Open" || inc {
		t.Errorf("after s. (a shop.Shop): %v incomplete=%v, want [Name Open] complete", got, inc)
	}
	got, inc := complete(11, 4)
	if len(got) == 0 || got[0] != "return" || inc {
		t.Errorf("for ret at a statement: %v incomplete=%v, want return first", got, inc)
	}
	for _, l := range got {
		if l == "Add" || l == "Remove" || l == "Total" {
			t.Errorf("for ret: the receiver's method %s offered bare: %v", l, got)
		}
	}
	if got, _ := complete(12, 3); strings.Join(got, " ") != "items Add Remove Total" {
		t.Errorf("after c.: %v, want the field, then the methods by name", got)
	}
}
