package lsp

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/libraries"
)

// completionLabels opens name with text and lists the labels completion
// offers at line:char, then closes it again.
func (e *lspEnv) completionLabels(name, lang, text string, line, char int) []string {
	e.t.Helper()
	u := e.uri(name)
	if err := e.client.DidOpen(u, lang, 1, text); err != nil {
		e.t.Fatal(err)
	}
	defer func() {
		if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": u}}); err != nil {
			e.t.Fatal(err)
		}
	}()
	return e.labelsAt(name, line, char)
}

// labelsAt lists the labels completion offers at line:char of name.
func (e *lspEnv) labelsAt(name string, line, char int) []string {
	e.t.Helper()
	var list struct {
		Items []struct{ Label string } `json:"items"`
	}
	if err := e.client.Call(e.ctx, "textDocument/completion", e.at(name, line, char), &list); err != nil {
		e.t.Fatal(err)
	}
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	return labels
}

const gitCheckout = "cargo/git/checkouts/tools-5f0e1d2c3b4a5968/0123456/"

// cargoFiles extends the registry fixture with a git crate checked out
// in a workspace of its repository, a path crate outside the workspace and
// one inside it, and a serde whose lib.rs also has private items and a
// crate-relative re-export under another name.
func cargoFiles() map[string]string {
	files := maps.Clone(rustFiles)
	files[cargoRegistry+"serde-1.0.190/src/lib.rs"] = "//! Serde.\npub mod de;\nmod private;\npub use de::Deserialize;\n" +
		"pub use crate::de::from_str as parse;\nuse std::fmt;\npub(crate) use de::from_str;\n\n" +
		"/// A data structure that can be serialized.\npub trait Serialize {\n    fn serialize(&self) -> String;\n}\n\n" +
		"fn internal() {}\npub(crate) fn hidden() {}\n"
	files[cargoRegistry+"serde-1.0.190/src/private.rs"] = "pub fn secret() {}\n"
	files[gitCheckout+".cargo-ok"] = ""
	files[gitCheckout+"Cargo.toml"] = "[workspace]\nmembers = [\"knife\"]\n"
	files[gitCheckout+"knife/Cargo.toml"] = "[package]\nname = \"knife\"\nversion = \"0.3.0\"\n"
	files[gitCheckout+"knife/src/lib.rs"] = "pub mod blade;\npub use blade::*;\n\n/// Cuts things.\npub fn cut(n: u32) -> u32 { n }\n"
	files[gitCheckout+"knife/src/blade.rs"] = "pub struct Blade;\n\npub fn sharpen() {}\n"
	files["outside/Cargo.toml"] = "[package]\nname = \"outside\"\n"
	files["outside/src/lib.rs"] = "pub fn out() {}\n"
	files["ws/shared/Cargo.toml"] = "[package]\nname = \"shared-bits\"\n"
	files["ws/shared/src/lib.rs"] = "pub fn share() {}\n"
	files["ws/Cargo.toml"] = "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\n" +
		"outside = { path = \"../outside\" }\nshared-bits = { path = \"shared\" }\ngone-path = { path = \"../gone\" }\n"
	files["ws/Cargo.lock"] += "\n[[package]]\nname = \"knife\"\nversion = \"0.3.0\"\nsource = \"git+https://github.com/acme/tools?branch=main#0123456789abcdef0123456789abcdef01234567\"\n" +
		"\n[[package]]\nname = \"unfetched\"\nversion = \"1.0.0\"\nsource = \"git+https://github.com/acme/unfetched#0123456789abcdef0123456789abcdef01234567\"\n"
	files["ws/src/lib.rs"] = "pub fn run() {\n    knife::cut(1);\n    outside::out();\n    shared_bits::share();\n" +
		"    serde::parse(\"x\");\n    knife::sharpen();\n}\n"
	return files
}

// Rust: a git crate from cargo's checkouts and path crates (outside the
// workspace indexed, inside it linked to the workspace's files) answer
// definition and hover; completion after `crate::` and `crate::module::`
// lists the module's public items and re-exports, not its private ones;
// a git crate not checked out and a missing path are skipped with their
// reasons.
func TestLSPRustCratePathsGitAndPathCrates(t *testing.T) {
	e, _ := startSourcesLSP(t, cargoFiles(), 4, nil)
	dir := filepath.ToSlash(filepath.Dir(e.root))
	reg := dir + "/" + cargoRegistry
	knife := dir + "/" + gitCheckout + "knife/src/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{1, 12, knife + "lib.rs:4"},                    // knife::cut (git crate)
		{2, 14, dir + "/outside/src/lib.rs:0"},         // outside::out (path crate outside)
		{3, 18, dir + "/ws/shared/src/lib.rs:0"},       // shared_bits::share (path crate inside)
		{4, 12, reg + "serde-1.0.190/src/de/mod.rs:5"}, // serde::parse, re-exported from crate::de
		{5, 12, knife + "blade.rs:2"},                  // knife::sharpen, through pub use blade::*
	} {
		if got := e.defAt("src/lib.rs", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("src/lib.rs", 1, 12), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "fn cut(n: u32) -> u32") || !strings.Contains(v, "Cuts things.") {
		t.Errorf("hover on knife::cut = %q", v)
	}

	for _, c := range []struct {
		typed     string
		want, not []string
	}{
		{"serde::", []string{"Serialize", "Deserialize", "de", "parse"}, []string{"internal", "hidden", "fmt", "private", "from_str", "secret"}},
		{"serde::de::", []string{"Deserialize", "from_str"}, []string{"Serialize"}},
		{"knife::", []string{"cut", "blade", "Blade", "sharpen"}, nil},
	} {
		text := "fn main() {\n    " + c.typed + "\n}\n"
		labels := e.completionLabels("src/main.rs", "rust", text, 1, 4+len(c.typed))
		for _, w := range c.want {
			if !slices.Contains(labels, w) {
				t.Errorf("completion after %q = %v, want %s among them", c.typed, labels, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(labels, n) {
				t.Errorf("completion after %q = %v, offers %s, which is not public there", c.typed, labels, n)
			}
		}
	}
	// A prefix match before a scattered one (DeSERialize).
	if labels := e.completionLabels("src/main.rs", "rust", "fn main() {\n    serde::Ser\n}\n", 1, 14); len(labels) == 0 || labels[0] != "Serialize" {
		t.Errorf("completion after serde::Ser = %v, want Serialize first", labels)
	}

	st := e.waitLibraries(4)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	for lib, want := range map[string]string{"unfetched@1.0.0": libraries.NotDownloaded, "gone-path@path": libraries.NotDownloaded} {
		if reasons[lib] != want {
			t.Errorf("%s skipped for %q, want %q (all: %+v)", lib, reasons[lib], want, st.Skipped)
		}
	}
}
