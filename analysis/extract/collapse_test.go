package extract

import (
	"strings"
	"testing"
)

func TestCollapseSpace(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\nb", "a \n b",
		"func f(x int) error", "a\u00a0b", "é b", "a\u2003b", "\u0085", "x y z"} {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
}
