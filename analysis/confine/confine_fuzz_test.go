package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzTree lays out two workspaces, a folder outside them and links of
// every kind between them, and returns base (the real temporary folder).
func fuzzTree(tb testing.TB) string {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range []string{"ws/dir/sub", "ws2", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range []string{"ws/a.txt", "ws/dir/b.txt", "ws2/c.txt", "outside/secret.txt"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte(f), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/out":          filepath.Join(base, "outside"),
		"ws/back":         "../outside",
		"ws/leak.txt":     filepath.Join(base, "outside/secret.txt"),
		"ws/alias.txt":    "a.txt",
		"ws/dirlink":      "dir",
		"ws/hop":          "out",
		"ws/dangling-in":  "new.txt",
		"ws/dangling-out": filepath.Join(base, "outside/new.txt"),
		"ws/loop1":        "loop2",
		"ws/loop2":        "loop1",
		"ws/weird":        "missing/../../outside",
		"ws/dir/up":       "..",
		"ws/dir/sub/up2":  "../..",
		"ws/rootlink":     ".",
		"ws/parent":       "..",
		"ws/slash":        "/",
		"ws/toother":      "../ws2",
		"ws/absin":        filepath.Join(base, "ws/dir"),
		"ws/chain":        "dirlink/up/dir",
		"ws2/tows":        "../ws",
		"outside/backin":  "../ws",
		"ws/viaoutside":   "../outside/backin/a.txt",
		"wslink":          "ws",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			tb.Fatal(err)
		}
	}
	return base
}

// reach is where the kernel takes p: the real location of its longest
// prefix that resolves, a dangling link followed to where O_CREAT would
// create its target; whole is false when some part does not exist. real is
// "" when the kernel takes p nowhere: a ".." after a part that does not
// exist fails (ENOENT), where the rule cleans the text.
func reach(p string, depth int) (real string, whole bool) {
	parts := strings.Split(p, string(filepath.Separator))
	real = string(filepath.Separator)
	for k := 1; k <= len(parts); k++ {
		prefix := strings.Join(parts[:k], string(filepath.Separator))
		if prefix == "" {
			continue
		}
		r, err := filepath.EvalSymlinks(prefix)
		if err == nil {
			real = r
			continue
		}
		if slices.Contains(parts[k:], "..") {
			return "", false
		}
		next := filepath.Join(real, parts[k-1])
		fi, lerr := os.Lstat(next)
		if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 || depth > maxLinks {
			return real, false
		}
		target, rerr := os.Readlink(next)
		if rerr != nil {
			return real, false
		}
		if !filepath.IsAbs(target) {
			target = real + string(filepath.Separator) + target
		}
		rest := strings.Join(parts[k:], string(filepath.Separator))
		return reach(target+string(filepath.Separator)+rest, depth+1)
	}
	return real, true
}

// FuzzCheck applies the rule to fuzzed paths over fuzzTree. A refusal is a
// *Error with a known reason; an accepted path is clean, spelled under a
// root, and both it and the path as named really resolve (kernel-wise)
// under a root's real location, to the same place when both exist. A plain
// path under a root, with no link on its way, is accepted as it is.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "dir/new/deeper.txt", "dir/../a.txt", "../outside/secret.txt", "out/secret.txt", "back/secret.txt",
		"leak.txt", "hop/secret.txt", "dangling-out", "dangling-in", "alias.txt", "loop1/x", "weird/secret.txt",
		"dir/up/a.txt", "dir/up/../outside", "rootlink/rootlink/a.txt", "slash/etc", "parent/outside/secret.txt",
		"toother/c.txt", "toother/tows/a.txt", "absin/b.txt", "chain/b.txt", "dir/sub/up2/a.txt", "viaoutside",
		"./dir//b.txt/", "", ".", "..", "missing/../../outside",
	} {
		f.Add(seed, uint8(1), uint8(0), uint8(0))
	}
	f.Add("secret.txt", uint8(4), uint8(0), uint8(2))
	f.Add("backin/a.txt", uint8(4), uint8(1), uint8(1))
	f.Add("a.txt", uint8(3), uint8(2), uint8(3))
	f.Add("../a.txt", uint8(1), uint8(3), uint8(0))
	f.Add("/etc/passwd", uint8(0), uint8(0), uint8(0))

	base := fuzzTree(f)
	in := func(rel string) string { return filepath.Join(base, rel) }
	prefixes := []string{"", in("ws") + "/", in("ws2") + "/", in("wslink") + "/", in("outside") + "/", base + "/", in("ws/dir") + "/"}
	rootSets := [][]string{
		{in("ws")},
		{in("ws"), in("ws2")},
		{in("wslink")},
		{in("ws/dir")},
		{},
		{"ws", ""},
		{in("ws") + "/", in("ws/dir")},
	}
	f.Fuzz(func(t *testing.T, name string, prefix, roots, access uint8) {
		path := prefixes[int(prefix)%len(prefixes)] + name
		rootSet := rootSets[int(roots)%len(rootSets)]
		acc := Access(access % 4)
		got, err := Check(rootSet, path, acc)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Check(%q, %s): %v is not a *confine.Error", path, acc, err)
			}
			switch e.Reason {
			case NotAbsolute, OutsideWorkspace, SymlinkEscape, DotDotAfterLink, SymlinkLoop:
			default:
				t.Fatalf("Check(%q, %s): unknown reason %q", path, acc, e.Reason)
			}
			if !filepath.IsAbs(path) && e.Reason != NotAbsolute {
				t.Fatalf("Check(%q, %s): a relative path refused as %s", path, acc, e.Reason)
			}
			if plainUnder(rootSet, path) {
				t.Fatalf("Check(%q, %s): a plain path under a root refused: %v", path, acc, err)
			}
			return
		}
		if !filepath.IsAbs(path) {
			t.Fatalf("Check(%q, %s) accepted a relative path as %q", path, acc, got)
		}
		if filepath.Clean(got) != got {
			t.Fatalf("Check(%q, %s) = %q, not clean", path, acc, got)
		}
		var given, real []string
		for _, r := range rootSet {
			if filepath.IsAbs(r) {
				given = append(given, filepath.Clean(r))
				rr, err := filepath.EvalSymlinks(r)
				if err != nil {
					t.Fatal(err)
				}
				real = append(real, rr)
			}
		}
		if under(given, got) < 0 {
			t.Fatalf("Check(%q, %s) = %q, not spelled under a root %q", path, acc, got, given)
		}
		gotReal, gotWhole := reach(got, 0)
		if gotReal == "" || under(real, gotReal) < 0 {
			t.Fatalf("Check(%q, %s) = %q, which resolves to %q, outside %q", path, acc, got, gotReal, real)
		}
		named, namedWhole := reach(path, 0)
		if named != "" && under(real, named) < 0 {
			t.Fatalf("Check(%q, %s) accepted a path that resolves to %q, outside %q", path, acc, named, real)
		}
		if gotWhole && namedWhole && gotReal != named {
			t.Fatalf("Check(%q, %s) = %q: it resolves to %q, the path as named to %q", path, acc, got, gotReal, named)
		}
		if plainUnder(rootSet, path) && got != path {
			t.Fatalf("Check(%q, %s) = %q, want the plain path itself", path, acc, got)
		}
	})
}

// plainUnder reports whether p is clean, spelled under an absolute root, and
// no part of it below that root is a link: nothing for the rule to refuse.
func plainUnder(roots []string, p string) bool {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return false
	}
	for _, root := range roots {
		if !filepath.IsAbs(root) || !within(filepath.Clean(root), p) {
			continue
		}
		plain := true
		for q := p; q != filepath.Clean(root) && plain; q = filepath.Dir(q) {
			fi, err := os.Lstat(q)
			plain = err != nil || fi.Mode()&fs.ModeSymlink == 0
		}
		// The root's own links are the rule's business only when the root
		// does not resolve.
		if _, err := filepath.EvalSymlinks(root); plain && err == nil {
			return true
		}
	}
	return false
}
