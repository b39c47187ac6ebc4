package lsp

import (
	"slices"
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
	// An unsaved edit of another file of the package: its methods are
	// those of its text, not of the file table's row.
	if err := e.client.DidOpen(e.uri("cart_extra.go"), "go", 1, "package main\n\nfunc (c *Cart) Clear() {}\n"); err != nil {
		t.Fatal(err)
	}
	if got, _ := complete(12, 3); strings.Join(got, " ") != "items Add Clear Total" {
		t.Errorf("after c. with cart_extra.go edited: %v, want Clear instead of Remove", got)
	}
}

// A type's methods are offered from the files built for the platform of
// the file completed, as the package's other names are: a method declared
// for Windows only is not offered in a Linux file, and is in a Windows
// one.
func TestLSPGoMethodCompletionFollowsPlatform(t *testing.T) {
	src := func(pkg string) string {
		return "package main\n\nfunc use" + pkg + "(d *Dirent) {\n\td.\n}\n"
	}
	e := startLSP(t, map[string]string{
		"go.mod":            "module example.com/c\n",
		"dirent.go":         "package main\n\ntype Dirent struct{ Reclen uint16 }\n\nfunc (d *Dirent) Name() string { return \"\" }\n",
		"dirent_linux.go":   "package main\n\nfunc (d *Dirent) Ino() uint64 { return 0 }\n",
		"dirent_windows.go": "package main\n\nfunc (d *Dirent) Handle() uintptr { return 0 }\n",
		"use.go":            src("Any"),
		"use_windows.go":    src("Windows"),
	})
	e.reindex()
	complete := func(file string) string {
		var list struct {
			Items []struct {
				Label string `json:"label"`
			} `json:"items"`
		}
		if err := e.client.Call(e.ctx, "textDocument/completion", e.at(file, 3, 3), &list); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		return strings.Join(labels, " ")
	}
	if got := complete("use.go"); got != "Reclen Ino Name" {
		t.Errorf("after d. in use.go (linux/amd64): %q, want the field, then Linux's and every platform's methods", got)
	}
	if got := complete("use_windows.go"); got != "Reclen Handle Name" {
		t.Errorf("after d. in use_windows.go: %q, want the field, then Windows's and every platform's methods", got)
	}
}

// After a package's name, where Go expects a type only its types are
// offered, as gopls does (*web.Re in a parameter: not ReadRequest); and a
// label in the prefix's case comes first (c.g: the unexported methods
// before GroupID).
func TestLSPGoMemberCompletionByPositionAndCase(t *testing.T) {
	e := startLSP(t, map[string]string{
		"go.mod": "module example.com/c\n",
		"web/web.go": "package web\n\ntype Request struct{}\n\ntype Response struct{}\n\n" +
			"func ReadRequest() *Request { return nil }\n\nconst RequestLimit = 1\n",
		"main.go": "package main\n\nimport \"example.com/c/web\"\n\n" +
			"func handle(r *web.Re) {}\n\n" +
			"func use() { _ = web.Re }\n\n" +
			"type Cmd struct{ GroupID string }\n\nfunc (c *Cmd) genZsh() {}\n\nfunc (c *Cmd) Gen() {}\n\n" +
			"func (c *Cmd) run() { c.g }\n\n" +
			"func many(names ...st) {}\n",
		// The standard library's builtin package, as a library holds it.
		"builtin/builtin.go": "package builtin\n\ntype string string\n\nfunc len(v Type) int\n\ntype Type int\n",
	})
	e.reindex()
	complete := func(line, char int) string { return strings.Join(e.labelsAt("main.go", line, char), " ") }
	if got := complete(4, 21); got != "Request Response" {
		t.Errorf("after *web.Re in a parameter's type: %q, want the types alone", got)
	}
	if got := strings.Fields(complete(6, 23)); len(got) != 4 || !slices.Contains(got, "ReadRequest") || !slices.Contains(got, "RequestLimit") {
		t.Errorf("after web.Re in an expression: %q, want every name", got)
	}
	if got := complete(14, 25); got != "genZsh GroupID Gen" {
		t.Errorf("after c.g: %q, want the label in the prefix's case first", got)
	}
	if got := complete(16, 20); got != "string struct" {
		t.Errorf("after ...st in a parameter: %q, want the types and type keywords in scope, not members (names) or values", got)
	}
}
