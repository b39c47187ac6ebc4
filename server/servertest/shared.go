package servertest

import (
	"os"
	"path/filepath"
	"testing"
)

// The shared folder (design, specs, reference data) lives next to the
// repository, never inside it. A developer without it may run the tests that
// need it as skipped; CI must not (CI set, as .ci/run does, and as the editor
// tests read it), so there they fail, and .ci/run refuses to start without it.

// Shared returns the absolute path of rel inside ../shared, next to the
// module root. When it is absent the test is skipped, or fails under CI.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	dir, ok := SharedIfPresent(t, rel)
	if !ok {
		t.Skipf("%s is absent (it lives in ../shared, next to the repository); skipped", dir)
	}
	return dir
}

// SharedIfPresent is Shared for a test that can run without rel, checking
// less: it reports whether rel is there, and fails under CI when it is not.
func SharedIfPresent(t testing.TB, rel string) (string, bool) {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "..", "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs %s, next to the repository: %v", dir, err)
		}
		return dir, false
	}
	return dir, true
}

// moduleRoot is the nearest directory above the test's own holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}
