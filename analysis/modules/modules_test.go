package modules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// unpack writes an archive under a temporary folder and returns it.
func unpack(t *testing.T, ar *txtar.Archive) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "modules", name))
	if err != nil {
		t.Fatal(err)
	}
	return unpack(t, ar)
}

func names(ms []Module) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestGradleBuild(t *testing.T) {
	root := fixture(t, "gradle.txtar")
	m := Load(root)
	want := []string{":app", ":domains:alpha:one", ":domains:alpha:two", ":legacy-api", ":platform:core"}
	if got := names(m.Modules); !slices.Equal(got, want) {
		t.Fatalf("modules = %v, want %v", got, want)
	}
	deps := map[string][]string{}
	for _, mod := range m.Modules {
		deps[mod.Name] = mod.Dependencies
	}
	wantDeps := map[string][]string{
		":app":               {":domains:alpha:two", ":platform:core"},
		":domains:alpha:one": {":legacy-api", ":platform:core"},
		":domains:alpha:two": {":domains:alpha:one", ":platform:core"},
		":legacy-api":        {},
		":platform:core":     {":app"},
	}
	for name, w := range wantDeps {
		if !slices.Equal(deps[name], w) {
			t.Errorf("dependencies of %s = %v, want %v", name, deps[name], w)
		}
	}
	api, _ := m.Module(":legacy-api")
	if api.Dir != filepath.Join(root, "old", "api") {
		t.Errorf("projectDir of :legacy-api = %s", api.Dir)
	}
	core, _ := m.Module(":platform:core")
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	if got := rel(core.SourceRoots); !slices.Equal(got, []string{"platform/core/src/commonMain/kotlin", "platform/core/src/jvmMain/kotlin"}) {
		t.Errorf("source roots of :platform:core = %v", got)
	}
	if mod, ok := m.ModuleOf(filepath.Join(root, "domains", "alpha", "two", "src", "main", "java", "shop", "Two.java")); !ok || mod.Name != ":domains:alpha:two" {
		t.Errorf("ModuleOf(Two.java) = %v, %v", mod.Name, ok)
	}
	problems := strings.Join(m.Problems, "\n")
	for _, p := range []string{":ghost is included but its folder", "cyclic module dependencies"} {
		if !strings.Contains(problems, p) {
			t.Errorf("problems %q do not report %q", problems, p)
		}
	}
	if strings.Contains(problems, "disabled") {
		t.Errorf("a commented-out include was read: %q", problems)
	}
	// Dependents are transitive: what a change to :legacy-api may break.
	if got := m.Dependents()[":legacy-api"]; !slices.Equal(got, []string{":app", ":domains:alpha:one", ":domains:alpha:two", ":platform:core"}) {
		t.Errorf("dependents of :legacy-api = %v", got)
	}
}

func TestMavenReactor(t *testing.T) {
	root := fixture(t, "maven.txtar")
	m := Load(root)
	if got := names(m.Modules); !slices.Equal(got, []string{"billing", "common"}) {
		t.Fatalf("modules = %v", got)
	}
	billing, _ := m.Module("billing")
	if !slices.Equal(billing.Dependencies, []string{"common"}) {
		t.Errorf("dependencies of billing = %v", billing.Dependencies)
	}
	problems := strings.Join(m.Problems, "\n")
	if !strings.Contains(problems, "broken") || !strings.Contains(problems, "missing") {
		t.Errorf("problems %q do not report the broken pom and the missing module", problems)
	}
}

// Bad input never fails a load: a workspace without build files has no
// modules, unreadable scripts are reported.
func TestNoBuild(t *testing.T) {
	if m := Load(t.TempDir()); len(m.Modules) != 0 || len(m.Problems) != 0 {
		t.Errorf("empty workspace: %+v", m)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "settings.gradle"), []byte("include ':a, ':b'\ninclude(\n"), 0o644)
	m := Load(root)
	if len(m.Problems) == 0 {
		t.Errorf("a broken settings file reports nothing: %+v", m)
	}
}
