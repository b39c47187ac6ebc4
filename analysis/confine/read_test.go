package confine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ReadFile reads what the rule allows and nothing a link takes out: the
// case of a file a scan listed before its folder became a link out.
func TestReadFileRefusesWhatALinkTakesOut(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, dir := range []string{filepath.Join(root, "pkg"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	listed := filepath.Join(root, "secret", "Hidden.kt")
	if err := os.WriteFile(filepath.Join(outside, "Hidden.kt"), []byte("fun stolen() = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pkg", "A.kt"), []byte("fun a() = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "secret")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("pkg", "A.kt"), filepath.Join(root, "alias.kt")); err != nil {
		t.Fatal(err)
	}
	rule := New([]string{root})
	data, err := rule.ReadFile(listed)
	var refused *Error
	if !errors.As(err, &refused) || refused.Reason != SymlinkEscape || data != nil {
		t.Fatalf("a file through a link out: %q, %v", data, err)
	}
	for _, p := range []string{filepath.Join(root, "pkg", "A.kt"), filepath.Join(root, "alias.kt")} {
		if data, err := rule.ReadFile(p); err != nil || string(data) != "fun a() = 1\n" {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
}
