package main

import (
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestLibraryModule(t *testing.T) {
	for path, want := range map[string]string{
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/urllib/parse.pyi":               "urllib.parse",
		"/c/kast/python-builtins/3.11.7/builtins.pyi":                                          "builtins",
		"/c/kast/python-builtins/3.11.7-k2/sys.pyi":                                            "sys", // a compiled module's stub
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/sys/__init__.pyi":               "sys",
		"/usr/lib/python3/dist-packages/mypy/typeshed/stdlib/http/cookiejar.pyi":               "http.cookiejar",
		"/usr/lib/python3/dist-packages/mypy/typeshed/stdlib/sqlite3/dbapi2.pyi":               "sqlite3", // older typeshed
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/_io.pyi":                        "io",
		"/usr/lib/python3.11/urllib/parse.py":                                                  "urllib.parse",
		"/usr/lib/python3.11/_collections_abc.py":                                              "typing",  // typeshed declares its classes in typing.pyi
		"/c/kast/python-builtins/3.11.7-k7/_sqlite3.pyi":                                       "sqlite3", // the classes sqlite3 passes on
		"/usr/lib/python3.11/posixpath.py":                                                     "os.path",
		"/x/node_modules/pyright/dist/typeshed-fallback/stdlib/os/path.pyi":                    "os.path",
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

// kast.status's libraries are done when kast says they settled and every
// open one is complete; none at all is done, not a wait without end.
func TestLibraryStateDone(t *testing.T) {
	for _, c := range []struct {
		status, summary string
		done            bool
	}{
		{`{"settled": true, "indexed": [], "skipped": [{"library": "/p/node_modules", "reason": "noNodeModules"}]}`,
			"0 indexed, 1 skipped (noNodeModules 1)", true},
		{`{"settled": false, "indexed": [], "skipped": []}`, "0 indexed, 0 skipped", false},
		{`{"settled": true, "indexed": [{"library": "zod@3.0.0", "complete": false}], "skipped": []}`,
			"0 of 1 indexed, 0 skipped", false},
		{`{"settled": true, "indexed": [{"library": "std@go1.24", "files": 9, "seconds": 1.5, "complete": true}], "skipped": [{"reason": "notInstalled"}, {"reason": "notInstalled"}]}`,
			"1 indexed (std@go1.24 9 files in 1.5 s), 2 skipped (notInstalled 2)", true},
		{`{"indexed": [], "skipped": []}`, "0 indexed, 0 skipped", false}, // an older kast: nothing to go by
	} {
		var st libraryState
		// Decoded as the JSON-RPC connection decodes kast.status (its
		// codec matches field names exactly).
		if err := (jsonrpc2.JSONCodec{}).Unmarshal([]byte(c.status), &st); err != nil {
			t.Fatal(err)
		}
		if st.done() != c.done || st.summary() != c.summary {
			t.Errorf("%s: done %v %q, want %v %q", c.status, st.done(), st.summary(), c.done, c.summary)
		}
	}
}
