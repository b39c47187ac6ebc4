// The import rules of the README's Layout section. Data flows one way:
// server → handlers/<family> → engines (analysis, agent, storage); a lower
// layer never imports an upper one, and the engines know nothing of
// JSON-RPC.
package kast_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kast-dev/kast/"

// rule forbids the packages under dir (a slash path) to import what matches
// one of forbidden: a module-relative prefix ("server") or an outside path
// prefix ("go.lsp.dev/"). allow lists exceptions to forbidden. Test files
// count unless prodOnly.
type rule struct {
	dir       string
	forbidden []string
	allow     []string
	prodOnly  bool
	why       string
}

var layoutRules = []rule{
	{dir: "server", forbidden: []string{"analysis", "agent", "storage", "handlers", "cmd"}, prodOnly: true,
		allow: []string{"analysis/markers"}, // the marker format servertest runs, a leaf package
		why:   "the transport knows no engine or protocol family (its tests drive the real language server)"},
	{dir: "analysis", forbidden: []string{"go.lsp.dev/", "server", "handlers", "agent", "cmd"},
		why: "engines know nothing of JSON-RPC or the protocols"},
	{dir: "agent", forbidden: []string{"go.lsp.dev/", "server", "handlers", "cmd"},
		why: "engines know nothing of JSON-RPC or the protocols"},
	{dir: "storage", forbidden: []string{"go.lsp.dev/", "server", "handlers", "agent", "cmd", "analysis/"},
		why: "storage holds keys and tables: it knows the fact types (package analysis) and no analysis rules"},
	{dir: "handlers/lsp", forbidden: []string{"handlers", "cmd"}, why: "a projection does not reach into another"},
	{dir: "handlers/kast", forbidden: []string{"handlers", "cmd"}, why: "a projection does not reach into another"},
	{dir: "handlers/kward", forbidden: []string{"handlers", "cmd"}, allow: []string{"handlers"}, prodOnly: true,
		why: "a projection does not reach into another"},
	{dir: "handlers/ck", forbidden: []string{"handlers", "cmd"}, prodOnly: true, why: "a projection does not reach into another"},
	{dir: "handlers/kaiak", forbidden: []string{"handlers", "cmd"}, prodOnly: true, why: "a projection does not reach into another"},
	{dir: "handlers/kimi", forbidden: []string{"handlers", "cmd"}, prodOnly: true, why: "a projection does not reach into another"},
}

func TestLayoutImportRules(t *testing.T) {
	for _, r := range layoutRules {
		err := filepath.WalkDir(filepath.FromSlash(r.dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || (r.prodOnly && strings.HasSuffix(path, "_test.go")) {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if bad := r.violates(p); bad != "" {
					t.Errorf("%s imports %s: %s may not import %s (%s)", filepath.ToSlash(path), p, r.dir, bad, r.why)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", r.dir, err)
		}
	}
}

// violates returns the forbidden entry an import path matches, or "".
// Entries with a dot are other modules' path prefixes; "tree/" forbids only
// tree's subpackages; "tree" forbids tree and everything under it. A package
// may always import its own tree.
func (r rule) violates(importPath string) string {
	rel, ours := strings.CutPrefix(importPath, module)
	if ours && (slices.Contains(r.allow, rel) || rel == r.dir || strings.HasPrefix(rel, r.dir+"/")) {
		return ""
	}
	for _, f := range r.forbidden {
		switch {
		case strings.Contains(f, "."):
			if strings.HasPrefix(importPath, f) {
				return f
			}
		case strings.HasSuffix(f, "/"):
			if ours && strings.HasPrefix(rel, f) {
				return f
			}
		case ours && (rel == f || strings.HasPrefix(rel, f+"/")):
			return f
		}
	}
	return ""
}

// The rules catch what they are meant to catch.
func TestLayoutRuleMatching(t *testing.T) {
	for _, tc := range []struct {
		r      rule
		imp    string
		forbid bool
	}{
		{layoutRules[0], module + "analysis/document", true},
		{layoutRules[0], "go.lsp.dev/protocol", false},
		{layoutRules[1], "go.lsp.dev/protocol", true},
		{layoutRules[1], module + "server", true},
		{layoutRules[1], module + "server/servertest", true},
		{layoutRules[1], module + "storage", false},
		{layoutRules[3], module + "analysis", false},
		{layoutRules[3], module + "analysis/resolve", true},
		{layoutRules[4], module + "handlers/kast", true},
		{layoutRules[4], module + "handlers", true},
		{layoutRules[4], module + "server", false},
		{layoutRules[6], module + "handlers", false},
		{layoutRules[6], module + "handlers/lsp", true},
	} {
		if got := tc.r.violates(tc.imp) != ""; got != tc.forbid {
			t.Errorf("%s importing %s: forbidden = %v, want %v", tc.r.dir, tc.imp, got, tc.forbid)
		}
	}
}
