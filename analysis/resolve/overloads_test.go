package resolve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/resolve"
)

// A generated file with 10,000 overloads of one name neither crashes nor
// stalls resolution: the call degrades to name matching, and a distinct
// name beside it still resolves.
func TestTenThousandOverloads(t *testing.T) {
	var b strings.Builder
	b.WriteString("package gen\n\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "fun f(x: Int, y%d: String = \"\") = %d\n", i, i)
	}
	b.WriteString("fun g(x: Int) = 0\n\nfun use() {\n    f(1)\n    g(2)\n}\n")
	files := map[string]string{"gen/Gen.kt": b.String()}
	ws := workspace(t, files)
	r := resolve.New(ws)
	src := files["gen/Gen.kt"]
	if got := r.DefinitionAt("gen/Gen.kt", strings.LastIndex(src, "f(1)")); len(got) == 0 {
		t.Error("the call of f has no candidates at all")
	}
	got := r.DefinitionAt("gen/Gen.kt", strings.LastIndex(src, "g(2)"))
	if len(got) != 1 || got[0].Uncertain || got[0].Name != "g" {
		t.Errorf("g(2) = %+v, want g", got)
	}
}
