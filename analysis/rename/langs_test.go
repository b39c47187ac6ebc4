package rename

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Beyond Kotlin and Java, a rename never edits a use bound to another
// declaration: a Go method and a function of one name stay apart,
// TypeScript overload signatures and Python @overload stubs are renamed
// with their implementation (one function declared several times), and a
// use tied between two symbols refuses the rename.
func TestRenameKeepsOtherDeclarationsUses(t *testing.T) {
	const goSrc = "package p\n\ntype S struct{}\n\nfunc (s *S) Run() {}\n\nfunc Run() {}\n\nfunc use(s *S) {\n\ts.Run()\n\tRun()\n}\n"
	const tsSrc = "export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any): void {}\n\nf('x');\nf(1);\n"
	const pySrc = "from typing import overload\n\n@overload\ndef f(a: str) -> str: ...\n@overload\ndef f(a: int) -> int: ...\ndef f(a):\n    return a\n\nf('x')\nf(1)\n"
	cases := []struct {
		name, path, src, at string
		lines               []int
	}{
		{"go method", "p/a.go", goSrc, "Run() {}", []int{5, 10}},
		{"go function", "p/a.go", goSrc, "Run() {}\n\nfunc use", []int{7, 11}},
		{"typescript overload signature", "a.ts", tsSrc, "f(a: number)", []int{1, 2, 3, 5, 6}},
		{"typescript call", "a.ts", tsSrc, "f(1)", []int{1, 2, 3, 5, 6}},
		{"python @overload", "a.py", pySrc, "f(a: int)", []int{4, 6, 7, 10, 11}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSnapshot(t, map[string]string{c.path: c.src})
			edits, err := Rename(s, c.path, strings.Index(c.src, c.at), "g")
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, e := range edits {
				lines = append(lines, e.Span.StartPoint.Line+1)
			}
			if !slices.Equal(lines, c.lines) {
				t.Errorf("edits on lines %v, want %v", lines, c.lines)
			}
		})
	}
}

// A Go function declared per platform (run_linux.go, run_windows.go) ties
// its calls between the declarations: renaming one refuses, naming both,
// rather than edit calls the other also owns.
func TestRenameRefusesTiedUse(t *testing.T) {
	files := map[string]string{
		"p/run_linux.go":   "package p\n\nfunc Run() {}\n",
		"p/run_windows.go": "package p\n\nfunc Run() {}\n",
		"p/use.go":         "package p\n\nfunc use() {\n\tRun()\n}\n",
	}
	s := newSnapshot(t, files)
	_, err := Rename(s, "p/run_linux.go", strings.Index(files["p/run_linux.go"], "Run"), "Start")
	var refused *Error
	if !errors.As(err, &refused) {
		t.Fatalf("rename = %v, want a refusal", err)
	}
	if !refused.Unsure || len(refused.Candidates) != 2 || !strings.Contains(refused.Msg, "run_windows.go") {
		t.Errorf("refusal %+v, want unsure with both Run functions", refused)
	}
}

// A Java static import names every overload of pad: renaming one overload
// would break the others' calls through it, so the rename refuses.
func TestRenameRefusesSharedStaticImport(t *testing.T) {
	files := map[string]string{
		"a/Format.java": "package a;\npublic final class Format {\n    public static String pad(String s) { return s; }\n    public static String pad(int n) { return \"\"; }\n}\n",
		"a/Use.java":    "package a;\nimport static a.Format.pad;\nclass Use {\n    void f() {\n        pad(\"b\");\n        pad(5);\n    }\n}\n",
	}
	s := newSnapshot(t, files)
	_, err := Rename(s, "a/Format.java", strings.Index(files["a/Format.java"], "pad"), "padText")
	var refused *Error
	if !errors.As(err, &refused) || !refused.Unsure || len(refused.Candidates) != 2 {
		t.Fatalf("rename = %v, want a refusal naming both overloads", err)
	}
}
