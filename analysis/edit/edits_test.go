package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Apply confines every path itself, whatever its caller checked: through a
// folder link out nothing is written, through a file link inside the
// target is written and the link kept.
func TestApplyConfines(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret, file := filepath.Join(outside, "secret.txt"), filepath.Join(ws, "a.txt")
	for p, text := range map[string]string{secret: "secret", file: "a"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, alias := filepath.Join(ws, "out"), filepath.Join(ws, "alias.txt")
	if err := os.Symlink(outside, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", alias); err != nil {
		t.Fatal(err)
	}
	viaOut := filepath.Join(out, "secret.txt")
	for name, plan := range map[string]Plan{
		"edit":     {Roots: []string{ws}, Edits: []Edit{{Path: viaOut, NewText: "x"}}, Hashes: map[string]string{viaOut: Hash([]byte("secret"))}},
		"create":   {Roots: []string{ws}, Ops: []FileOp{{Create: true, Path: filepath.Join(out, "new.txt")}}},
		"delete":   {Roots: []string{ws}, Ops: []FileOp{{Path: viaOut, ExpectedHash: Hash([]byte("secret"))}}},
		"no roots": {Edits: []Edit{{Path: file, NewText: "x"}}, Hashes: map[string]string{file: Hash([]byte("a"))}},
	} {
		_, err := Apply(plan)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Validation || e.Details["rule"] == "" {
			t.Errorf("%s: %v; want a validation error naming the rule", name, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("outside holds %v", entries)
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Errorf("the file outside holds %q", b)
	}

	applied, err := Apply(Plan{Roots: []string{ws}, Edits: []Edit{{Path: alias, Start: 1, End: 1, NewText: "b"}}, Hashes: map[string]string{alias: Hash([]byte("a"))}})
	if err != nil || len(applied.Affected) != 1 || applied.Affected[0] != file {
		t.Fatalf("edit through a link inside: %+v, %v", applied, err)
	}
	if fi, err := os.Lstat(alias); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "ab" {
		t.Errorf("the target holds %q", b)
	}
	// Two names of one file.
	_, err = Apply(Plan{Roots: []string{ws}, Edits: []Edit{{Path: alias, NewText: "x"}},
		Hashes: map[string]string{alias: Hash([]byte("ab")), file: Hash([]byte("ab"))}})
	if err == nil {
		t.Errorf("two expected hashes for one file were accepted")
	}
}
