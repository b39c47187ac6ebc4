package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// `import * as fs from "node:fs"` binds fs in the file (where tsserver
// answers for it); fs.x is the ambient module's declaration, and after
// "fs." an expression lists its values but not its types. A parameter
// destructured from a type alias takes its member's type (a DOM global
// reached through an indexed access type), and an object literal's
// properties are its variable's members.
func TestLSPTypeScriptNamespaceImportsAndDestructuring(t *testing.T) {
	types, lib := "ws/node_modules/@types/node/", "ws/node_modules/typescript/lib/"
	e, dir := startLibraryLSP(t, map[string]string{
		"ws/package.json":                         `{"name": "app", "devDependencies": {"@types/node": "22.0.0", "typescript": "5.9.3"}}`,
		types + "package.json":                    `{"name": "@types/node", "version": "22.0.0", "types": "index.d.ts"}`,
		types + "index.d.ts":                      "/// <reference path=\"fs.d.ts\" />\n",
		types + "fs.d.ts":                         "declare module \"fs\" {\n    export interface Stats {}\n    export function existsSync(path: string): boolean;\n    export function readFileSync(path: string): string;\n}\n",
		"ws/node_modules/typescript/package.json": `{"name": "typescript", "version": "5.9.3", "typings": "./lib/typescript.d.ts"}`,
		lib + "lib.dom.d.ts":                      "interface RequestInit {\n    signal?: AbortSignal | null;\n}\ninterface AbortSignal {\n    throwIfAborted(): void;\n    readonly reason: any;\n}\ndeclare var AbortSignal: { prototype: AbortSignal };\n",
		"ws/app.ts": "import * as fs from \"node:fs\";\n\n" +
			"export function f(p: string) {\n    return fs.existsSync(p) && fs.e;\n}\n" +
			"type DelayOptions = { signal?: RequestInit['signal'] };\n" +
			"export function delay({signal}: DelayOptions) {\n    signal.throwIfAborted();\n    signal.t;\n}\n" +
			"export const Codes = { NOT_FOUND: \"NOT_FOUND\", NOT_ALLOWED: \"NOT_ALLOWED\" } as const;\n" +
			"Codes.NOT_FOUND;\n",
	}, 2)
	root := filepath.ToSlash(dir) + "/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{3, 11, root + "ws/app.ts:0"},          // fs: the namespace import's binding
		{3, 14, root + types + "fs.d.ts:2"},    // fs.existsSync in declare module "fs"
		{7, 12, root + lib + "lib.dom.d.ts:4"}, // signal.throwIfAborted through RequestInit['signal']
		{11, 7, root + "ws/app.ts:10"},         // Codes.NOT_FOUND: the object literal's property
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
	if got := complete(3, 35); !strings.HasPrefix(got, "existsSync") || strings.Contains(got, "Stats") {
		t.Errorf("after fs.e: %q, want the module's values, not its types", got)
	}
	if got := complete(8, 12); !strings.HasPrefix(got, "throwIfAborted") {
		t.Errorf("after signal.t: %q, want AbortSignal's members", got)
	}
	if got := complete(11, 6); got != "NOT_ALLOWED NOT_FOUND" {
		t.Errorf("after Codes.: %q, want the object literal's properties", got)
	}
}
