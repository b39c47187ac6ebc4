package libraries

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Git crates are found in cargo's checkouts by repository name and commit,
// the package in a checkout's workspace member; path dependencies inside
// the workspace are linked in (indexed with the workspace), those outside
// it are libraries; each missing, unfinished or broken one is skipped with
// its reason.
func TestDiscoverCargoGitAndPathCrates(t *testing.T) {
	dir := t.TempDir()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	const other = "fedcba9876543210fedcba9876543210fedcba98"
	co := "cargo/git/checkouts/"
	write(t, dir, map[string]string{
		co + "tools-1a2b3c4d5e6f7a8b/0123456/.cargo-ok":               "",
		co + "tools-1a2b3c4d5e6f7a8b/0123456/Cargo.toml":              "[workspace]\nmembers = [\"crates/*\"]\n",
		co + "tools-1a2b3c4d5e6f7a8b/0123456/crates/knife/Cargo.toml": "[package]\nname = \"knife\"\nversion = \"0.3.0\"\n",
		co + "tools-1a2b3c4d5e6f7a8b/0123456/crates/knife/src/lib.rs": "pub fn cut() {}\n",
		co + "half-99/fedcba9/Cargo.toml":                             "[package]\nname = \"half\"\n",
		"ws/Cargo.toml":                                               "[workspace]\nmembers = [\n  \"app\",\n  \"crates/*\",\n]\n\n[workspace.dependencies]\nshared = { path = \"crates/shared\" }\n",
		"ws/app/Cargo.toml": "[package]\nname = \"app\"\n\n[dependencies]\nshared = { workspace = true }\n" +
			"outside = { path = \"../../outside\", version = \"1\" }\nnowhere = { path = \"../../nowhere\" }\n\n" +
			"[dependencies.tabled]\npath = \"../crates/tabled\"\n",
		"ws/crates/shared/Cargo.toml": "[package]\nname = \"shared\"\n",
		"ws/crates/shared/src/lib.rs": "pub fn share() {}\n",
		"ws/crates/tabled/Cargo.toml": "[package]\nname = \"tabled\"\n",
		"outside/Cargo.toml":          "[package]\nname = \"outside\"\n",
		"outside/src/lib.rs":          "pub fn out() {}\n",
		"ws/Cargo.lock": "version = 3\n\n[[package]]\nname = \"knife\"\nversion = \"0.3.0\"\nsource = \"git+https://github.com/acme/tools.git?branch=main#" + rev + "\"\n\n" +
			"[[package]]\nname = \"half\"\nversion = \"1.0.0\"\nsource = \"git+https://github.com/acme/half#" + other + "\"\n\n" +
			"[[package]]\nname = \"unfetched\"\nversion = \"1.0.0\"\nsource = \"git+https://github.com/acme/unfetched#" + rev + "\"\n\n" +
			"[[package]]\nname = \"evil\"\nversion = \"1.0.0\"\nsource = \"git+https://github.com/acme/evil#../../x\"\n",
	})
	if err := os.Symlink(filepath.Join(dir, "loop"), filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"ws/crates/looped/Cargo.toml": "[package]\nname = \"looped\"\n\n[dependencies]\nlooper = { path = \"../../../loop\" }\n"})
	f := Discover(context.Background(), filepath.Join(dir, "ws"), Options{Caches: &Caches{CargoHome: filepath.Join(dir, "cargo")}})
	libs := map[string]Library{}
	for _, l := range f.Libraries {
		libs[l.Module] = l
	}
	if l := libs["knife"]; l.Version != "0.3.0+git.0123456" || l.Dir != filepath.Join(dir, filepath.FromSlash(co+"tools-1a2b3c4d5e6f7a8b/0123456/crates/knife")) {
		t.Errorf("git crate knife = %+v", l)
	}
	if l := libs["outside"]; l.Dir != filepath.Join(dir, "outside") || l.Linked() || !l.Include(filepath.Join(l.Dir, "src", "lib.rs")) {
		t.Errorf("path crate outside the workspace = %+v, want a library that indexes its files", l)
	}
	for _, name := range []string{"shared", "tabled"} {
		if l := libs[name]; !l.Linked() || l.Include(filepath.Join(l.Dir, "src", "lib.rs")) {
			t.Errorf("path crate %s inside the workspace = %+v, want it linked and indexing nothing", name, l)
		}
	}
	want := map[string]string{"half@1.0.0": Incomplete, "unfetched@1.0.0": NotDownloaded, "evil@1.0.0": BadBuildFile,
		"nowhere@path": NotDownloaded, "looper@path": LinkLoop}
	r := reasons(f)
	for lib, reason := range want {
		if r[lib] != reason {
			t.Errorf("%s skipped for %q, want %q (all: %+v)", lib, r[lib], reason, f.Skipped)
		}
	}
	if len(f.Libraries) != 4 {
		t.Errorf("libraries: %+v", f.Libraries)
	}
}

func TestCargoLibTable(t *testing.T) {
	for _, c := range []struct{ manifest, path, name string }{
		{"[package]\nname = \"a\"\n", "", ""},
		{"[package]\nname = \"a\"\npath = \"no.rs\"\n\n[lib]\nname = \"a_core\" # comment\npath = \"lib.rs\"\n\n[dependencies]\nname = \"x\"\n", "lib.rs", "a_core"},
		{"[lib]\npath=\"src/other.rs\"\n", "src/other.rs", ""},
		{"[lib]\nproc-macro = true\n", "", ""},
	} {
		if path, name := cargoLibTable(c.manifest); path != c.path || name != c.name {
			t.Errorf("cargoLibTable(%q) = %q, %q; want %q, %q", c.manifest, path, name, c.path, c.name)
		}
	}
	// A [lib] path out of the crate's folder is not followed.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[lib]\npath = \"../../etc/x.rs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := withCargoLib(Library{Lang: "rust", Module: "a-b", Dir: dir})
	if got := l.CrateSourceFiles(nil); len(got) != 1 || got[0] != filepath.Join(dir, "src", "lib.rs") || l.RustName() != "a_b" {
		t.Errorf("crate with an escaping [lib] path: root %v, name %q", got, l.RustName())
	}
}
