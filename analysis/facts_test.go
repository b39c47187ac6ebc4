package analysis

import "testing"

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
