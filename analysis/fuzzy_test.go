package analysis

import "testing"

func TestFuzzyScore(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		match         bool
	}{
		{"", "anything", true},
		{"rf", "ReadFile", true},
		{"RF", "readfile", true},
		{"fr", "ReadFile", false},
		{"σ", "Σίσυφος", true},
		{"日本", "日本語", true},
		{"日本語x", "日本語", false},
	} {
		if got := FuzzyScore(tc.pattern, tc.name) > 0; got != tc.match {
			t.Errorf("FuzzyScore(%q, %q) matches = %v, want %v", tc.pattern, tc.name, got, tc.match)
		}
	}
	ranked := []string{"ReadFile", "readfile", "ReadFileAt", "ReadFromFile"}
	for i := 1; i < len(ranked); i++ {
		if a, b := FuzzyScore("ReadFile", ranked[i-1]), FuzzyScore("ReadFile", ranked[i]); a <= b {
			t.Errorf("%q scores %d, not above %q's %d", ranked[i-1], a, ranked[i], b)
		}
	}
	if n := testing.AllocsPerRun(100, func() { FuzzyScore("rdFl", "ReadFileAtOffset") }); n != 0 {
		t.Errorf("FuzzyScore allocates %v times per call", n)
	}
}

func TestIsASCII(t *testing.T) {
	for _, tc := range []struct {
		text  string
		ascii bool
	}{
		{"", true},
		{"package p\n", true},
		{"0123456789abcdef0123456789abcdef!", true},
		{"é", false},
		{"0123456789abcdefé", false},
		{"01234567é", false},
		{"\x7f\x00", true},
	} {
		if got := IsASCII([]byte(tc.text)); got != tc.ascii {
			t.Errorf("IsASCII(%q) = %v, want %v", tc.text, got, tc.ascii)
		}
	}
}
