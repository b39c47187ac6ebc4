package libraries

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
// (as pnpm links zod to packages/zod) resolves imports to the workspace's
// files and indexes none itself: a library copy would shadow them. So does
// the workspace's own package, for imports of its own name. One linked
// from outside the root is a library read from its TypeScript.
func TestDiscoverNodeWorkspaceLinks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ws/package.json": `{"name": "mono", "exports": {"./tool": "./tool.ts"}, "dependencies": {"zod": "workspace:*", "left": "1", "sibling": "workspace:*"}}`,
		"ws/tool.ts":      "export const t = 1;\n",
		// A source checkout: "types" names a file not built; the custom
		// condition leads to the sources.
		"ws/packages/zod/package.json":      `{"name": "zod", "version": "4.4.3", "exports": {"./v4": {"@zod/source": "./src/v4/index.ts", "types": "./v4/index.d.cts"}}}`,
		"ws/packages/zod/src/v4/index.ts":   "export const z = 1;\n",
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
	byName := map[string]Library{}
	for _, l := range found.Libraries {
		byName[l.Module] = l
	}
	if len(found.Libraries) != 4 || len(found.Skipped) != 0 {
		t.Fatalf("found %+v, want left, sibling, zod and mono", found)
	}
	for name, c := range map[string]struct {
		linked  bool
		sub     string
		entry   string
		indexes string
	}{
		"left":    {false, "", "node_modules/left/index.d.ts", "index.d.ts"},
		"sibling": {false, "", "../sibling/src/index.ts", "src/index.ts"},
		"zod":     {true, "v4", "packages/zod/src/v4/index.ts", ""},
		"mono":    {true, "tool", "tool.ts", ""},
	} {
		l := byName[name]
		if l.linked != c.linked || l.linked != strings.Contains(l.Version, "+ws.") {
			t.Errorf("%s: linked %v version %s, want linked %v", name, l.linked, l.Version, c.linked)
		}
		files := l.NodeEntryFiles(c.sub)
		if len(files) == 0 || files[0] != filepath.Join(root, filepath.FromSlash(c.entry)) {
			t.Errorf("%s: entry files of %q %v, want %s first", name, c.sub, files, c.entry)
		}
		if c.indexes != "" && !l.nodeInclude(strings.Split(c.indexes, "/")) || c.indexes == "" && l.nodeInclude([]string{"src", "index.ts"}) {
			t.Errorf("%s: nodeInclude wrong, want it to index only %q", name, c.indexes)
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

// A monorepo's packages, listed by pnpm-workspace.yaml or package.json's
// "workspaces", are linked in by their names though the root depends on
// none of them, and what each installs in its own node_modules is a
// library; a dependency installed only above it is found there, once.
func TestDiscoverNodeWorkspacePackages(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"pnpm": {
			"package.json":        `{"private": true}`,
			"pnpm-workspace.yaml": "packages:\n  # the libraries\n  - 'packages/*'\n  - \"!packages/skipped\"\nother:\n  - apps/*\n",
		},
		"yarn": {"package.json": `{"private": true, "workspaces": {"packages": ["packages/*"]}}`},
		"npm":  {"package.json": `{"private": true, "workspaces": ["packages/*", "../outside/*"]}`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, files)
			writeFiles(t, dir, map[string]string{
				"packages/zod/package.json":                          `{"name": "zod", "version": "4.0.0", "exports": {"./v4": "./src/v4/index.ts"}, "devDependencies": {"left": "1"}}`,
				"packages/zod/src/v4/index.ts":                       "export const z = 1;\n",
				"packages/zod/node_modules/@types/node/package.json": `{"name": "@types/node", "version": "25.0.0", "types": "index.d.ts"}`,
				"packages/zod/node_modules/@types/node/index.d.ts":   "declare module \"url\" {}\n",
				"packages/bench/package.json":                        `{"name": "bench", "version": "0.0.0", "dependencies": {"left": "1", "gone": "1"}}`,
				"apps/web/package.json":                              `{"name": "web", "version": "0.0.0", "exports": "./index.ts"}`,
				"node_modules/left/package.json":                     `{"name": "left", "version": "1.0.0", "types": "index.d.ts"}`,
				"node_modules/left/index.d.ts":                       "export declare const pad: number;\n",
			})
			found := Discover(context.Background(), dir, Options{Caches: &Caches{}})
			var got []string
			for _, l := range found.Libraries {
				got = append(got, l.Module)
			}
			want := []string{"zod", "left", "@types/node"} // bench exports nothing
			if !slices.Equal(got, want) {
				t.Errorf("libraries %v, want %v", got, want)
			}
			if len(found.Skipped) != 1 || found.Skipped[0].Library != "gone" || found.Skipped[0].Reason != NotInstalled {
				t.Errorf("skipped %+v, want gone not installed", found.Skipped)
			}
			for _, l := range found.Libraries {
				if l.Module == "zod" && (!l.linked || len(l.NodeEntryFiles("v4")) != 1) {
					t.Errorf("zod: linked %v, entries of v4 %v", l.linked, l.NodeEntryFiles("v4"))
				}
			}
		})
	}
}

// A root that is one package of a monorepo, whose dependencies pnpm hoists
// into the monorepo's node_modules, has them as libraries: its own and the
// monorepo root's, @types and typescript among them, found above it as Node
// resolves them, and no skip for a node_modules it lacks.
func TestDiscoverNodeMonorepoPackageRoot(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json":                             `{"private": true, "devDependencies": {"left": "1", "typescript": "5"}}`,
		"pnpm-workspace.yaml":                      "packages:\n  - packages/*\n",
		"packages/zod/package.json":                `{"name": "zod", "version": "4.0.0", "exports": {"./v4": "./src/v4/index.ts"}, "dependencies": {"right": "1"}}`,
		"packages/zod/src/v4/index.ts":             "export const z = 1;\n",
		"node_modules/left/package.json":           `{"name": "left", "version": "1.0.0", "types": "index.d.ts"}`,
		"node_modules/left/index.d.ts":             "export declare const pad: number;\n",
		"node_modules/right/package.json":          `{"name": "right", "version": "2.0.0", "types": "index.d.ts"}`,
		"node_modules/right/index.d.ts":            "export declare const r: number;\n",
		"node_modules/typescript/package.json":     `{"name": "typescript", "version": "5.5.4", "types": "lib/typescript.d.ts"}`,
		"node_modules/typescript/lib/lib.es5.d.ts": "interface Array<T> { length: number; }\n",
		"node_modules/@types/node/package.json":    `{"name": "@types/node", "version": "22.0.0", "types": "index.d.ts"}`,
		"node_modules/@types/node/index.d.ts":      "declare module \"url\" {}\n",
		"outside/package.json":                     `{"name": "outside", "version": "0.0.0"}`,
	})
	found := Discover(context.Background(), filepath.Join(dir, "packages/zod"), Options{Caches: &Caches{}})
	var got []string
	for _, l := range found.Libraries {
		got = append(got, l.Module)
	}
	slices.Sort(got)
	if want := []string{"@types/node", "left", "right", "typescript", "zod"}; !slices.Equal(got, want) {
		t.Errorf("libraries %v, want %v", got, want)
	}
	if len(found.Skipped) != 0 {
		t.Errorf("skipped %+v, want none", found.Skipped)
	}
	// A folder no monorepo lists finds nothing above it.
	if found := Discover(context.Background(), filepath.Join(dir, "outside"), Options{Caches: &Caches{}}); len(found.Libraries) != 0 {
		t.Errorf("outside: libraries %+v, want none", found.Libraries)
	}
}

// The packages a dependency's declarations import are libraries, and the
// packages theirs import, a few levels down; one that ships no
// declarations brings its @types package as Node finds it
// from the dependency (vitest's @vitest/expect imports chai, typed by the
// @types/chai pnpm installs beside it, not in the root's node_modules/@types).
func TestDiscoverNodeImportedTypesPackage(t *testing.T) {
	dir := t.TempDir()
	nested := "node_modules/expect/node_modules/"
	writeFiles(t, dir, map[string]string{
		"package.json":                             `{"devDependencies": {"expect": "1"}}`,
		"node_modules/expect/package.json":         `{"name": "expect", "version": "1.0.0", "types": "index.d.ts"}`,
		"node_modules/expect/index.d.ts":           "import * as chai from 'chai';\nimport type { T } from '@babel/core';\nexport * from 'runner';\nexport interface A extends Chai.Assertion {}\n",
		nested + "chai/package.json":               `{"name": "chai", "version": "6.0.0", "main": "index.js"}`,
		nested + "chai/index.js":                   "export const expect = 1;\n",
		nested + "@types/chai/package.json":        `{"name": "@types/chai", "version": "5.2.3", "types": "index.d.ts"}`,
		nested + "@types/chai/index.d.ts":          "declare global { namespace Chai { interface Assertion {} } }\nexport {};\n",
		nested + "@types/babel__core/package.json": `{"name": "@types/babel__core", "version": "7.0.0", "types": "index.d.ts"}`,
		nested + "@types/babel__core/index.d.ts":   "export type T = 1;\n",
		// Two imports away: expect → runner → tinypool.
		nested + "runner/package.json":   `{"name": "runner", "version": "1.0.0", "types": "index.d.ts"}`,
		nested + "runner/index.d.ts":     "export * from 'tinypool';\n",
		nested + "tinypool/package.json": `{"name": "tinypool", "version": "1.0.0", "types": "index.d.ts"}`,
		nested + "tinypool/index.d.ts":   "export declare const pool: number;\n",
	})
	found := Discover(context.Background(), dir, Options{Caches: &Caches{}})
	var got []string
	for _, l := range found.Libraries {
		got = append(got, l.Module)
	}
	slices.Sort(got)
	if want := []string{"@types/babel__core", "@types/chai", "chai", "expect", "runner", "tinypool"}; !slices.Equal(got, want) {
		t.Errorf("libraries %v, want %v", got, want)
	}
}
