package extract

import "testing"

func TestDoc(t *testing.T) {
	tests := []struct {
		name, src string
		style     CommentStyle
		want      string
	}{
		{"kdoc block", "/**\n * Greets.\n * Twice.\n */\nfun f()", CStyle, "Greets.\nTwice."},
		{"plain block is not kdoc", "/* note */\nfun f()", CStyle, ""},
		{"line comments", "x\n// One.\n// Two.\nfunc f()", GoStyle, "One.\nTwo."},
		{"rust doc lines", "/// Doc.\n//! Inner.\nfn f()", GoStyle, "Doc.\nInner."},
		{"blank line detaches", "// Old.\n\nfunc f()", GoStyle, ""},
		{"trailing comment of code above", "x := 1 // not doc\nfunc f()", GoStyle, ""},
		{"hash", "# Base does stuff.\nclass A:", HashStyle, "Base does stuff."},
		{"nothing above", "func f()", GoStyle, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := len(tt.src) - len(lastLine(tt.src))
			if got := Doc([]byte(tt.src), start, tt.style); got != tt.want {
				t.Errorf("Doc = %q, want %q", got, tt.want)
			}
		})
	}
}

func lastLine(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
