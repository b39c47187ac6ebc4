package lang

import (
	"context"
	"testing"
)

func TestForPath(t *testing.T) {
	for path, want := range map[string]string{
		"a/B.kt": "kotlin", "build.gradle.kts": "kotlin", "x.go": "go", "m.py": "python", "t.ts": "typescript",
		"c.tsx": "tsx", "j.jsx": "javascript", "J.java": "java", "lib.rs": "rust", "r.rb": "ruby", "X.JAVA": "java",
	} {
		l, ok := ForPath(path)
		if !ok || l.ID != want || l.Syntax.ID != want {
			t.Errorf("ForPath(%q) = %v, %v; want %s", path, l, ok, want)
		}
	}
	if _, ok := ForPath("README.md"); ok {
		t.Error("README.md has a language")
	}
}

func TestExtractFillsFileFacts(t *testing.T) {
	src := []byte("package p\n\nfunc f() {}\n")
	f, err := Extract(context.Background(), "p/f.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if f.Lang != "go" || f.Path != "p/f.go" || f.Size != len(src) || f.Lines != 3 || len(f.Hash) != 64 {
		t.Errorf("facts = %+v", f)
	}
	if _, err := Extract(context.Background(), "x.unknown", src); err == nil {
		t.Error("no error for an unsupported file")
	}
}
