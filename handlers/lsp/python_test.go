package lsp

import (
	"slices"
	"strings"
	"testing"
)

const pythonSession = `import helpers


class PreparedRequest:
    def prepare_body(self):
        pass


class Session:
    def __init__(self):
        self.adapters = {}
        self.timeout = 3

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass

    def send(self):
        pass

    def run(self):
        self.


def prep() -> PreparedRequest:
    return PreparedRequest()


p = prep()
p.
helpers.
`

// Python: members after a value a function annotated "-> T" returns, a
// name bound by "with … as", a module's attributes, and self.'s members
// including the attributes __init__ sets.
func TestLSPPythonCompletionAndWith(t *testing.T) {
	e := startLSP(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"x\"\n",
		"app.py":         pythonSession,
		"helpers.py":     "import os as _os\n\nTIMEOUT = 3\n\n\ndef retry():\n    pass\n",
		"use.py":         "from app import Session\n\nwith Session() as session:\n    session.send()\n",
	})
	e.reindex()
	complete := func(line, char int) []string {
		var list struct {
			Items []struct{ Label string } `json:"items"`
		}
		if err := e.client.Call(e.ctx, "textDocument/completion", e.at("app.py", line, char), &list); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	if got := complete(23, 13); !slices.Contains(got, "adapters") || !slices.Contains(got, "timeout") || !slices.Contains(got, "send") {
		t.Errorf("self.: %v, want the attributes __init__ sets and the methods", got)
	}
	if got := complete(31, 2); !slices.Contains(got, "prepare_body") {
		t.Errorf("p. (p = prep() -> PreparedRequest): %v", got)
	}
	if got := complete(32, 8); !slices.Contains(got, "TIMEOUT") || !slices.Contains(got, "retry") {
		t.Errorf("helpers.: %v, want the module's attributes", got)
	}
	if got := e.defAt("use.py", 3, 14); !strings.HasSuffix(got, "/app.py:19") {
		t.Errorf("definition of session.send (with Session() as session) = %q, want app.py:19", got)
	}
}
