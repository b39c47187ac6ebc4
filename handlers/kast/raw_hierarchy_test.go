package kast

import (
	"encoding/json"
	"os"
	"testing"
)

// A recursive call and an inheritance loop come back as nodes truncated
// with reason CYCLE, in results the OpenAPI schema accepts.
func TestHierarchiesMarkCycles(t *testing.T) {
	schemas := loadKastSchemas(t, kastReference(t))
	e := newKastEnv(t, "kotlin.txtar")
	const rel = "src/main/kotlin/sample/Loops.kt"
	src := "package sample\n\nfun ping(n: Int): Int = pong(n - 1)\n\nfun pong(n: Int): Int = ping(n - 1)\n\n" +
		"open class Egg : Chicken()\n\nopen class Chicken : Egg()\n"
	if err := os.WriteFile(e.path(rel), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ok("raw/workspace-refresh", map[string]any{"filePaths": []string{e.path(rel)}}, nil)

	type node struct {
		Symbol struct {
			FqName string `json:"fqName"`
		} `json:"symbol"`
		Truncation *struct {
			Reason string `json:"reason"`
		} `json:"truncation"`
		Children []node `json:"children"`
	}
	// render lists the path to each node as names, a truncation after a colon.
	var render func(n node, prefix string, out *[]string)
	render = func(n node, prefix string, out *[]string) {
		line := prefix + n.Symbol.FqName
		if n.Truncation != nil {
			line += ":" + n.Truncation.Reason
		}
		*out = append(*out, line)
		for _, c := range n.Children {
			render(c, line+" > ", out)
		}
	}
	check := func(method string, params map[string]any, want []string) {
		t.Helper()
		raw := e.ok(method, params, nil)
		schemas.validate(t, method, raw)
		var res struct {
			Root node `json:"root"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		var got []string
		render(res.Root, "", &got)
		if len(got) != len(want) {
			t.Fatalf("%s: got %q, want %q", method, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %q, want %q", method, got, want)
				break
			}
		}
	}
	check("raw/call-hierarchy", map[string]any{"position": e.pos(rel, "ping", 0), "direction": "OUTGOING", "depth": 5},
		[]string{"sample.ping", "sample.ping > sample.pong", "sample.ping > sample.pong > sample.ping:CYCLE"})
	check("raw/type-hierarchy", map[string]any{"position": e.pos(rel, "Egg", 0), "direction": "SUPERTYPES", "depth": 5},
		[]string{"sample.Egg", "sample.Egg > sample.Chicken", "sample.Egg > sample.Chicken > sample.Egg:CYCLE"})
}
