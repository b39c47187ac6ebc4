package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/libraries"
)

// waitSettled polls kast.status until the session's libraries have
// settled, and fails when they never do.
func (e *lspEnv) waitSettled() libraryStatus {
	e.t.Helper()
	for {
		var status struct {
			Libraries struct {
				Settled bool `json:"settled"`
				libraryStatus
			} `json:"libraries"`
		}
		if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
			e.t.Fatal(err)
		}
		if status.Libraries.Settled {
			return status.Libraries.libraryStatus
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("libraries never settled: %+v", status.Libraries)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A TypeScript project whose packages were never installed (a pnpm
// lockfile, no node_modules) has no libraries: kast.status says so as
// settled, with one counted reason, rather than leaving a client waiting.
func TestLSPLibrariesSettleWithoutNodeModules(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"ws/package.json":    `{"name": "app", "dependencies": {"zod": "^3"}, "devDependencies": {"typescript": "5.9.3", "vitest": "^2"}}`,
		"ws/pnpm-lock.yaml":  "lockfileVersion: '9.0'\n",
		"ws/src/index.ts":    "export const double = (n: number) => n * 2;\n",
		"ws/src/use.test.ts": "import { double } from \"./index\";\ndouble(2);\n",
	}, 0)
	st := e.waitSettled()
	if len(st.Indexed) != 0 {
		t.Errorf("indexed %+v, want none", st.Indexed)
	}
	var skip *libraries.Skip
	for i, s := range st.Skipped {
		if s.Reason == libraries.NoNodeModules {
			skip = &st.Skipped[i]
		} else {
			t.Errorf("skipped %+v, want only %s", s, libraries.NoNodeModules)
		}
	}
	if skip == nil || !strings.Contains(skip.Detail, "3 dependencies") || !strings.Contains(skip.Detail, "pnpm install") {
		t.Fatalf("skipped %+v, want one %s naming 3 dependencies and pnpm install", st.Skipped, libraries.NoNodeModules)
	}
	// The workspace itself still answers.
	if got := e.firstDefAt("src/use.test.ts", 1, 1); !strings.HasSuffix(got, "ws/src/index.ts:0") {
		t.Errorf("definition of double = %q, want ws/src/index.ts:0", got)
	}
}

// A project with its libraries installed settles once they are indexed.
func TestLSPLibrariesSettleWhenIndexed(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"ws/package.json":                   `{"name": "app", "dependencies": {"left": "1"}}`,
		"ws/node_modules/left/package.json": `{"name": "left", "version": "1.0.0", "types": "index.d.ts"}`,
		"ws/node_modules/left/index.d.ts":   "export declare function pad(s: string): string;\n",
		"ws/app.ts":                         "import { pad } from \"left\";\npad(\"x\");\n",
	}, 0)
	st := e.waitSettled()
	if len(st.Indexed) != 1 || !st.Indexed[0].Complete {
		t.Fatalf("settled with %+v, want left indexed and complete", st.Indexed)
	}
}

// A package importing itself by name (zod's tests import "zod/v4") and a
// monorepo sibling linked into node_modules reach the workspace's own
// sources through their exports, a custom condition included, with no
// library copy of them indexed.
func TestLSPWorkspacePackagesResolveToWorkspace(t *testing.T) {
	e, dir := startLibraryLSPWith(t, map[string]string{
		"ws/package.json": `{"name": "zod", "version": "4.4.3", "exports": {"./v4": {"@zod/source": "./src/v4/index.ts", "types": "./v4/index.d.cts"}},` +
			` "devDependencies": {"helper": "workspace:*"}}`,
		"ws/src/v4/index.ts":                "export function string(): number {\n  return 1;\n}\n",
		"ws/packages/helper/package.json":   `{"name": "helper", "version": "0.0.1", "exports": {".": "./src/main.ts"}}`,
		"ws/packages/helper/src/main.ts":    "export const assist = (n: number) => n;\n",
		"ws/src/v4/tests/string.test.ts":    "import * as z from \"zod/v4\";\nimport { assist } from \"helper\";\nz.string();\nassist(2);\nimport { string } from \"zod/v4\";\nstring();\n",
		"ws/node_modules/.modules.yaml":     "{}\n",
		"ws/packages/helper/tsconfig.json":  "{}\n",
		"ws/packages/helper/src/unused.txt": "\n",
	}, 2, func(dir string) {
		if err := os.Symlink("../packages/helper", filepath.Join(dir, "ws", "node_modules", "helper")); err != nil {
			t.Fatal(err)
		}
	})
	st := e.waitSettled()
	for _, l := range st.Indexed {
		if l.Files != 0 {
			t.Errorf("library %s indexed %d files, want none: the workspace has them", l.Library, l.Files)
		}
	}
	root := filepath.ToSlash(dir) + "/ws/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{2, 2, root + "src/v4/index.ts:0"},             // z.string through the package's own exports
		{3, 0, root + "packages/helper/src/main.ts:0"}, // the linked sibling
		{5, 0, root + "src/v4/index.ts:0"},
	} {
		if got := e.firstDefAt("src/v4/tests/string.test.ts", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
}
