package libraries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A monorepo's package linked into node_modules from the workspace itself
// (as pnpm links zod to packages/zod) is the workspace's, not a library:
// a library copy would shadow the sources kast indexes as the workspace.
// One linked from outside the root is a library read from its TypeScript.
func TestDiscoverNodeWorkspaceLinks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ws/package.json":                   `{"dependencies": {"zod": "workspace:*", "left": "1", "sibling": "workspace:*"}}`,
		"ws/packages/zod/package.json":      `{"name": "zod", "version": "4.4.3", "exports": {".": "./src/index.ts"}}`,
		"ws/packages/zod/src/index.ts":      "export const z = 1;\n",
		"ws/node_modules/left/package.json": `{"name": "left", "version": "1.0.0", "types": "index.d.ts"}`,
		"ws/node_modules/left/index.d.ts":   "export declare const pad: number;\n",
		"sibling/package.json":              `{"name": "sibling", "version": "0.1.0", "exports": "./src/index.ts"}`,
		"sibling/src/index.ts":              "export const s = 1;\n",
	})
	root := filepath.Join(dir, "ws")
	for link, target := range map[string]string{"zod": "../packages/zod", "sibling": "../../sibling"} {
		if err := os.Symlink(target, filepath.Join(root, "node_modules", link)); err != nil {
			t.Fatal(err)
		}
	}
	found := Discover(context.Background(), root, Options{Caches: &Caches{}})
	var libs []string
	for _, l := range found.Libraries {
		libs = append(libs, l.String())
	}
	if strings.Join(libs, " ") != "left@1.0.0 sibling@0.1.0" {
		t.Errorf("libraries %v, want left@1.0.0 sibling@0.1.0", libs)
	}
	if len(found.Skipped) != 1 || found.Skipped[0].Reason != InWorkspace || found.Skipped[0].Library != "zod@4.4.3" ||
		found.Skipped[0].Detail != "linked to packages/zod, indexed with the workspace" {
		t.Errorf("skipped %+v, want zod@4.4.3 %s", found.Skipped, InWorkspace)
	}
	for _, l := range found.Libraries {
		if l.Module == "sibling" && !l.nodeInclude([]string{"src", "index.ts"}) {
			t.Errorf("sibling's TypeScript sources are not indexed")
		}
	}
}

// A project whose packages were never installed is one counted skip that
// names the installer its lockfile asks for.
func TestDiscoverNodeNothingInstalled(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json":   `{"dependencies": {"zod": "^4"}, "devDependencies": {"vitest": "^3"}}`,
		"pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
	})
	found := Discover(context.Background(), dir, Options{Caches: &Caches{}})
	if len(found.Libraries) != 0 || len(found.Skipped) != 1 || found.Skipped[0].Reason != NoNodeModules ||
		found.Skipped[0].Detail != "2 dependencies of package.json are not installed (pnpm install puts them there)" {
		t.Errorf("found %+v, want one %s skip", found, NoNodeModules)
	}
}
