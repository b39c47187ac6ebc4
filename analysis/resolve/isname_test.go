package resolve

import (
	"regexp"
	"testing"
)

func TestIsNameMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$`)
	for _, q := range []string{"", "a", "a.b", "a..b", ".a", "a.", "_x1", "1x", "x.1", "$a.$b", "é.ü2", "a b", "a(b)", "x٣", "٣x", "a.b.c", "\xff", "a\xff", "Ⅷ", "aⅧ"} {
		if got, want := isName(q), re.MatchString(q); got != want {
			t.Errorf("isName(%q) = %v, regexp %v", q, got, want)
		}
	}
}
