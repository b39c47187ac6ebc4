package main

import "testing"

func TestLibraryModule(t *testing.T) {
	for path, want := range map[string]string{
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/urllib/parse.pyi":               "urllib.parse",
		"/c/kast/python-builtins/3.11.7/builtins.pyi":                                          "builtins",
		"/c/kast/python-builtins/3.11.7-k2/sys.pyi":                                            "sys", // a compiled module's stub
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/sys/__init__.pyi":               "sys",
		"/usr/lib/python3.11/urllib/parse.py":                                                  "urllib.parse",
		"/p/.venv/lib/python3.11/site-packages/_pytest/mark/__init__.py":                       "_pytest.mark",
		"/x/node_modules/pyright/dist/typeshed-fallback/stubs/requests/requests-stubs/api.pyi": "requests.api",
		"/p/node_modules/@types/node/fs.d.ts":                                                  "node",
		"/p/node_modules/typescript/lib/lib.es5.d.ts":                                          "typescript",
		"/p/node_modules/@vitest/expect/dist/index.d.ts":                                       "@vitest/expect",
	} {
		if got := libraryModule(path); got != want {
			t.Errorf("libraryModule(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestIdentifierFrom(t *testing.T) {
	for _, c := range []struct {
		line string
		col  int
		want string
	}{
		{"    class ParseResult(_ParseResultBase[str, str]):", 4, "ParseResult"},
		{"export declare function parse(x: string): void;", 0, "parse"},
		{"DEBUG: Final = 10", 0, "DEBUG"},
	} {
		if got := identifierFrom(c.line, c.col); got != c.want {
			t.Errorf("identifierFrom(%q, %d) = %q, want %q", c.line, c.col, got, c.want)
		}
	}
}
