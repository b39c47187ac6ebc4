package edit

import (
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// AFTER_IMPORTS is the line after the last import, even when the import's
// span runs over the comments after it (Kotlin's grammar gives the import
// the next declaration's KDoc).
func TestAfterImportsSkipsTrailingComments(t *testing.T) {
	for _, tc := range []struct{ name, text, spanTo, want string }{
		{"kdoc", "package a\n\nimport b.C\n/** Doc. */\nclass D\n", "/** Doc. */\n", "/** Doc."},
		{"kdoc after blank", "package a\n\nimport b.C\n\n/** Doc. */\nclass D\n", "/** Doc. */", "\n/** Doc."},
		{"line comment", "package a\nimport b.C\n// note\nclass D\n", "// note\n", "// note"},
		{"plain", "package a\nimport b.C\nclass D\n", "import b.C", "class D"},
	} {
		start := strings.Index(tc.text, "import")
		end := strings.Index(tc.text, tc.spanTo) + len(tc.spanTo)
		f := &analysis.FileFacts{Imports: []analysis.Import{{Path: "b.C", Span: analysis.Span{Start: start, End: end}}}}
		got, ok := InsertionPoint(f, []byte(tc.text), 0, "AFTER_IMPORTS")
		if want := strings.Index(tc.text, tc.want); !ok || got != want {
			t.Errorf("%s: AFTER_IMPORTS at %d, want %d (before %q)", tc.name, got, want, tc.want)
		}
	}
}
