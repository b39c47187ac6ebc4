package lsp

import (
	"path/filepath"
	"strconv"
	"testing"

	"go.lsp.dev/uri"
)

// TypeScript's global declarations (lib.*.d.ts of the typescript package)
// answer names no import brings in: the earliest edition first, members of
// a global interface through a parameter's type, and a workspace
// declaration still shadows a global one.
func TestLSPTypeScriptGlobalsIntoLibraries(t *testing.T) {
	lib := "ws/node_modules/typescript/lib/"
	e, dir := startLibraryLSP(t, map[string]string{
		"ws/package.json":                         `{"name": "app", "devDependencies": {"typescript": "5.9.3"}}`,
		"ws/node_modules/typescript/package.json": `{"name": "typescript", "version": "5.9.3", "typings": "./lib/typescript.d.ts"}`,
		lib + "lib.es5.d.ts":                      "interface Error {\n    message: string;\n}\ndeclare var Error: ErrorConstructor;\ninterface Promise<T> {\n    then(): void;\n}\n",
		lib + "lib.es2015.promise.d.ts":           "interface Promise<T> {\n    finally(): void;\n}\ndeclare var Promise: PromiseConstructor;\n",
		lib + "lib.dom.d.ts":                      "interface Response {\n    status: number;\n}\ndeclare function fetch(input: string): Promise<Response>;\n",
		"ws/app.ts": "import { Local } from \"./local\";\n\nexport function f(r: Response): Promise<number> {\n    fetch(\"u\");\n" +
			"    throw new Error(String(r.status));\n}\nexport const l: Local = {};\n",
		"ws/local.ts": "export interface Local {}\nexport interface Response {}\n",
	}, 1)
	root := filepath.ToSlash(dir) + "/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{2, 22, root + lib + "lib.dom.d.ts:0"}, // Response
		{2, 33, root + lib + "lib.es5.d.ts:4"}, // Promise: lib.es5's before lib.es2015's
		{3, 5, root + lib + "lib.dom.d.ts:3"},  // fetch
		{4, 15, root + lib + "lib.es5.d.ts:0"}, // Error: the interface, then the var
		{4, 30, root + lib + "lib.dom.d.ts:1"}, // r.status through the global interface
		{6, 17, root + "ws/local.ts:0"},        // imported, not global
	} {
		if got := e.firstDefAt("app.ts", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
}

// firstDefAt is the first of the definitions at a position, as
// "path:line", or "" when there is none.
func (e *lspEnv) firstDefAt(name string, line, char int) string {
	e.t.Helper()
	locs, err := e.definition(e.at(name, line, char))
	if err != nil {
		e.t.Fatal(err)
	}
	if len(locs) == 0 {
		return ""
	}
	return filepath.ToSlash(uri.URI(locs[0].URI).FsPath()) + ":" + strconv.Itoa(locs[0].Range.Start.Line)
}

// A package's entry points decide which declaration file an import names:
// "exports" with conditions (types inside import) and re-exports from
// there, an exports subpath, "types" deep in the package, and @types/<pkg>
// for a package without declarations of its own.
func TestLSPTypeScriptPackageEntryPoints(t *testing.T) {
	nm := "ws/node_modules/"
	e, dir := startLibraryLSP(t, map[string]string{
		"ws/package.json":                         `{"name": "app", "dependencies": {"exp": "2", "deep": "1", "untyped": "1"}, "devDependencies": {"@types/untyped": "1"}}`,
		nm + "exp/package.json":                   `{"name": "exp", "version": "2.0.0", "exports": {".": {"import": {"types": "./dist/esm/index.d.mts", "default": "./dist/esm/index.mjs"}, "require": "./dist/cjs/index.js"}, "./util": {"types": "./dist/util.d.ts"}}}`,
		nm + "exp/dist/esm/index.d.mts":           "export { helper } from \"./helper.js\";\n",
		nm + "exp/dist/esm/helper.d.ts":           "export declare function helper(): void;\n",
		nm + "exp/dist/cjs/index.d.ts":            "export declare function helper(): void;\n",
		nm + "exp/dist/util.d.ts":                 "\nexport declare function helper(): number;\n",
		nm + "deep/package.json":                  `{"name": "deep", "version": "1.0.0", "types": "./build/types/public/api.d.ts"}`,
		nm + "deep/build/types/public/api.d.ts":   "export declare class Api {}\n",
		nm + "deep/build/types/internal/api.d.ts": "export declare class Api {}\n",
		nm + "untyped/package.json":               `{"name": "untyped", "version": "1.0.0", "main": "lib/untyped.js"}`,
		nm + "untyped/lib/untyped.js":             "exports.go = function () {};\n",
		nm + "@types/untyped/package.json":        `{"name": "@types/untyped", "version": "1.0.1", "types": "index.d.ts"}`,
		nm + "@types/untyped/index.d.ts":          "export declare function go(): void;\n",
		"ws/app.ts": "import { helper } from \"exp\";\nimport { helper as util } from \"exp/util\";\nimport { Api } from \"deep\";\nimport { go } from \"untyped\";\n\n" +
			"helper();\nutil();\nnew Api();\ngo();\n",
	}, 4)
	root := filepath.ToSlash(dir) + "/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{5, 1, root + nm + "exp/dist/esm/helper.d.ts:0"},
		{6, 1, root + nm + "exp/dist/util.d.ts:1"},
		{7, 5, root + nm + "deep/build/types/public/api.d.ts:0"},
		{8, 0, root + nm + "@types/untyped/index.d.ts:0"},
	} {
		if got := e.defAt("app.ts", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
}
