package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// Node's modules as @types/node declares them, `declare module "fs" { … }`:
// an import of "fs" or "node:fs" names those declarations (no package is
// installed under that name). The members of string values and arrays are
// lib.es5.d.ts's String and Array, for definition and for completion, which
// lists a type's members by name as tsserver does.
func TestLSPTypeScriptAmbientModulesAndLibMembers(t *testing.T) {
	types, lib := "ws/node_modules/@types/node/", "ws/node_modules/typescript/lib/"
	e, dir := startLibraryLSP(t, map[string]string{
		"ws/package.json":                         `{"name": "app", "devDependencies": {"@types/node": "22.0.0", "typescript": "5.9.3"}}`,
		types + "package.json":                    `{"name": "@types/node", "version": "22.0.0", "types": "index.d.ts"}`,
		types + "index.d.ts":                      "/// <reference path=\"fs.d.ts\" />\n",
		types + "fs.d.ts":                         "declare module \"fs\" {\n    export function readFile(path: string): void;\n    export function rm(path: string): void;\n}\ndeclare module \"node:fs\" {\n    export * from \"fs\";\n}\n",
		"ws/node_modules/typescript/package.json": `{"name": "typescript", "version": "5.9.3", "typings": "./lib/typescript.d.ts"}`,
		lib + "lib.es5.d.ts": "interface String {\n    toLowerCase(): string;\n    trim(): string;\n    length: number;\n}\n" +
			"interface Array<T> {\n    length: number;\n    map<U>(f: (v: T) => U): U[];\n    filter(f: (v: T) => boolean): T[];\n}\n",
		"ws/app.ts": "import { readFile } from \"fs\";\nimport { rm } from \"node:fs\";\n\n" +
			"export function f(name: string, names: string[]) {\n    readFile(name);\n    rm(name.toLowerCase());\n    return names.length;\n}\n" +
			"export function g(s?: string) {\n    \"ab\".t;\n    s!.l;\n}\n",
	}, 2)
	root := filepath.ToSlash(dir) + "/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{4, 5, root + types + "fs.d.ts:1"},     // readFile from "fs"
		{5, 5, root + types + "fs.d.ts:2"},     // rm from "node:fs", which re-exports "fs"
		{5, 14, root + lib + "lib.es5.d.ts:1"}, // name.toLowerCase: String's
		{6, 18, root + lib + "lib.es5.d.ts:6"}, // names.length: Array's
	} {
		if got := e.firstDefAt("app.ts", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	complete := func(line, char int) string {
		var list struct {
			Items []struct {
				Label string `json:"label"`
			} `json:"items"`
		}
		if err := e.client.Call(e.ctx, "textDocument/completion", e.at("app.ts", line, char), &list); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		return strings.Join(labels, " ")
	}
	if got := complete(6, 17); got != "filter length map" {
		t.Errorf("after names.: %q, want Array's members by name", got)
	}
	if got := complete(9, 10); !strings.HasPrefix(got, "toLowerCase trim") {
		t.Errorf("after \"ab\".t: %q, want String's members starting with t", got)
	}
	if got := complete(10, 8); !strings.HasPrefix(got, "length") {
		t.Errorf("after s!.l: %q, want String's length", got)
	}
}
