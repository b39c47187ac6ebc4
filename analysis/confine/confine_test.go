package confine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile lays out a workspace with the links a hostile client would plant,
// next to a folder outside it.
func hostile(t *testing.T) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{filepath.Join(ws, "a.txt"): "a", filepath.Join(outside, "secret.txt"): "secret"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"out":          outside,                              // a folder link leaving the workspace
		"back":         "../outside",                         // the same, relative
		"leak.txt":     filepath.Join(outside, "secret.txt"), // a file link leaving it
		"alias.txt":    "a.txt",                              // a file link staying inside
		"dirlink":      "dir",                                // a folder link staying inside
		"hop":          "out",                                // a link to a link that leaves
		"dangling-in":  "new.txt",                            // to a file not yet created, inside
		"dangling-out": filepath.Join(outside, "new.txt"),
		"loop1":        "loop2",
		"loop2":        "loop1",
		"weird":        "missing/../../outside", // ".." after an element that does not exist
		"dir/up":       "..",                    // back to the root: still inside
		"rootlink":     ".",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestCheck(t *testing.T) {
	ws, outside := hostile(t)
	in := func(rel string) string { return filepath.Join(ws, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		name   string
		path   string
		access Access
		want   string // the path to use, or
		reason Reason // the refusal
		link   string // the link the refusal names
	}{
		{name: "relative path", path: "a.txt", reason: NotAbsolute},
		{name: "empty path", path: "", reason: NotAbsolute},
		{name: "plain file", path: in("a.txt"), want: in("a.txt")},
		{name: "not yet existing file", path: in("dir/new/deeper.txt"), access: Create, want: in("dir/new/deeper.txt")},
		{name: "dot-dot without a link", path: ws + "/dir/../a.txt", want: in("a.txt")},
		{name: "absolute path outside", path: filepath.Join(outside, "secret.txt"), reason: OutsideWorkspace},
		{name: "dot-dot out of the root", path: ws + "/../outside/secret.txt", reason: OutsideWorkspace},
		{name: "read through a folder link out", path: in("out/secret.txt"), reason: SymlinkEscape, link: in("out")},
		{name: "create through a folder link out", path: in("out/new.txt"), access: Create, reason: SymlinkEscape, link: in("out")},
		{name: "delete through a folder link out", path: in("out/secret.txt"), access: Delete, reason: SymlinkEscape, link: in("out")},
		{name: "relative folder link out", path: in("back/secret.txt"), reason: SymlinkEscape, link: in("back")},
		{name: "read a file link out", path: in("leak.txt"), reason: SymlinkEscape, link: in("leak.txt")},
		{name: "write a file link out", path: in("leak.txt"), access: Write, reason: SymlinkEscape, link: in("leak.txt")},
		{name: "delete a file link out", path: in("leak.txt"), access: Delete, reason: SymlinkEscape, link: in("leak.txt")},
		{name: "a link to a link out blames the one leaving", path: in("hop/secret.txt"), reason: SymlinkEscape, link: in("out")},
		{name: "create through a dangling link out", path: in("dangling-out"), access: Create, reason: SymlinkEscape, link: in("dangling-out")},
		{name: "write a file link inside lands on its target", path: in("alias.txt"), access: Write, want: in("a.txt")},
		{name: "delete a file link inside removes the link", path: in("alias.txt"), access: Delete, want: in("alias.txt")},
		{name: "create through a folder link inside", path: in("dirlink/x.txt"), access: Create, want: in("dir/x.txt")},
		{name: "create through a dangling link inside", path: in("dangling-in"), access: Create, want: in("new.txt")},
		{name: "a link back to the root", path: in("dir/up/a.txt"), want: in("a.txt")},
		{name: "dot-dot after a folder link out", path: ws + "/out/../a.txt", reason: DotDotAfterLink, link: in("out")},
		{name: "dot-dot after a folder link inside", path: ws + "/dirlink/../a.txt", access: Create, reason: DotDotAfterLink, link: in("dirlink")},
		{name: "dot-dot in a link target after a missing element", path: in("weird/secret.txt"), reason: DotDotAfterLink, link: in("weird")},
		{name: "link loop", path: in("loop1/x"), reason: SymlinkLoop, link: in("loop1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check([]string{ws}, tc.path, tc.access)
			if tc.reason == "" {
				if err != nil || got != tc.want {
					t.Fatalf("Check(%q, %v) = %q, %v; want %q", tc.path, tc.access, got, err, tc.want)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Check(%q, %v) = %q, %v; want refusal %s", tc.path, tc.access, got, err, tc.reason)
			}
			if ce.Reason != tc.reason || ce.Link != tc.link || got != "" {
				t.Fatalf("Check(%q, %v): reason %s link %q (path %q); want %s link %q", tc.path, tc.access, ce.Reason, ce.Link, got, tc.reason, tc.link)
			}
			if msg := err.Error(); !strings.Contains(msg, string(tc.reason)) || (tc.link != "" && !strings.Contains(msg, tc.link)) {
				t.Errorf("message %q names neither the rule %s nor the link %q", msg, tc.reason, tc.link)
			}
		})
	}
}

// A root reached through a link: paths come back under the root as the
// caller spelled it, whichever way the client named them.
func TestCheckRootBehindLink(t *testing.T) {
	ws, outside := hostile(t)
	alias := filepath.Join(filepath.Dir(ws), "alias")
	if err := os.Symlink(ws, alias); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(alias, "a.txt"), filepath.Join(ws, "a.txt"), filepath.Join(alias, "alias.txt")} {
		if got, err := Check([]string{alias}, p, Read); err != nil || got != filepath.Join(alias, "a.txt") {
			t.Errorf("Check(%s) = %q, %v; want it under %s", p, got, err, alias)
		}
	}
	if _, err := Check([]string{alias}, filepath.Join(alias, "out", "secret.txt"), Read); !isReason(err, SymlinkEscape) {
		t.Errorf("escape below a linked root: %v", err)
	}
	// Several roots: the path goes to the one that holds it.
	if got, err := Check([]string{ws, outside}, filepath.Join(ws, "out", "secret.txt"), Read); err != nil || got != filepath.Join(outside, "secret.txt") {
		t.Errorf("a link into another root: %q, %v", got, err)
	}
	for _, roots := range [][]string{nil, {""}, {"."}, {"ws"}} {
		if _, err := Check(roots, filepath.Join(ws, "a.txt"), Read); !isReason(err, OutsideWorkspace) {
			t.Errorf("roots %q: %v", roots, err)
		}
	}
}

func isReason(err error, r Reason) bool {
	var ce *Error
	return errors.As(err, &ce) && ce.Reason == r
}
