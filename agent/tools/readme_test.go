package tools

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeToolTable checks the README's table of code-intelligence tools
// (after the <!-- tools-table --> marker) against the tools a Set with an
// index registers: the same tools, each with its parameters' names, JSON
// types and whether they are required, so the documentation cannot drift.
func TestReadmeToolTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "<!-- tools-table -->\n")
	if !ok {
		t.Fatal("README.md has no <!-- tools-table --> marker")
	}
	documented := map[string][]string{}
	param := regexp.MustCompile("`([a-z_]+)(\\??): ([a-z]+)`")
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if name == "tool" || strings.HasPrefix(name, "---") {
			continue
		}
		var ps []string
		for _, m := range param.FindAllStringSubmatch(cells[2], -1) {
			ps = append(ps, m[1]+m[2]+": "+m[3])
		}
		documented[name] = ps
	}

	plain := map[string]bool{}
	for _, s := range (&Set{}).Specs() {
		plain[s.Name] = true
	}
	registered := map[string][]string{}
	for _, s := range (&Set{Code: Index{}}).Specs() {
		if plain[s.Name] {
			continue
		}
		props, _ := s.Parameters["properties"].(map[string]any)
		required, _ := s.Parameters["required"].([]string)
		var ps []string
		for name, p := range props {
			opt := "?"
			if slices.Contains(required, name) {
				opt = ""
			}
			ps = append(ps, name+opt+": "+p.(map[string]any)["type"].(string))
		}
		registered[s.Name] = ps
	}
	if len(registered) < 8 {
		t.Fatalf("only %d code tools registered: %v", len(registered), registered)
	}
	for name, want := range registered {
		got, ok := documented[name]
		if !ok {
			t.Errorf("README.md does not document the tool %s (%v)", name, want)
			continue
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("README.md documents %s with %v, registered with %v", name, got, want)
		}
	}
	for name := range documented {
		if _, ok := registered[name]; !ok {
			t.Errorf("README.md documents %s, which is not a registered code tool", name)
		}
	}
}
