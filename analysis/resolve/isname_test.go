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

func TestSplitChain(t *testing.T) {
	for _, c := range []struct{ value, from, rest string }{
		{"v.Args[]", "v", ".Args[]"},
		{"s.pp.Prog()", "s", ".pp.Prog()"},
		{"v_0", "v_0", ""},
		{"b.Values[]", "b", ".Values[]"},
		{"v.Two()#1", "v", ".Two()#1"},
		{"a.(*Value).Args[]", "", ""}, // an assertion's type is the file's
		{"&x", "", ""},
		{"new(T)", "", ""},
		{"v.Pair#1", "", ""}, // only a call has other results
		{"v.Two()#", "", ""},
		{"x.", "", ""},
		{"", "", ""},
	} {
		from, rest, ok := splitChain(c.value)
		if from != c.from || rest != c.rest || ok != (c.from != "") {
			t.Errorf("splitChain(%q) = %q, %q, %v; want %q, %q", c.value, from, rest, ok, c.from, c.rest)
		}
	}
}
