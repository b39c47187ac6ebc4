package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/libraries"
)

const cargoRegistry = "cargo/registry/src/index.crates.io-6f17d22bba15001f/"

// The fake cargo registry: serde with a module and a re-export, and a
// crate whose name has a dash.
var rustFiles = map[string]string{
	cargoRegistry + "serde-1.0.190/Cargo.toml": "[package]\nname = \"serde\"\nversion = \"1.0.190\"\n",
	cargoRegistry + "serde-1.0.190/src/lib.rs": "//! Serde.\npub mod de;\npub use de::Deserialize;\n\n" +
		"/// A data structure that can be serialized.\npub trait Serialize {\n    fn serialize(&self) -> String;\n}\n",
	cargoRegistry + "serde-1.0.190/src/de/mod.rs": "/// A data structure that can be deserialized.\npub trait Deserialize {\n" +
		"    fn deserialize(s: &str) -> Self;\n}\n\npub fn from_str(s: &str) -> u32 { 0 }\n",
	cargoRegistry + "serde-1.0.190/tests/test.rs": "fn from_str() {}\n",
	cargoRegistry + "my-util-0.2.0/Cargo.toml":    "[package]\nname = \"my-util\"\nversion = \"0.2.0\"\n",
	cargoRegistry + "my-util-0.2.0/src/lib.rs":    "pub fn helper() {}\n",
	// Half extracted: no Cargo.toml.
	cargoRegistry + "half-0.1.0/src/lib.rs": "pub fn half() {}\n",
	"ws/Cargo.toml":                         "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
	"ws/Cargo.lock": "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\n" +
		"[[package]]\nname = \"serde\"\nversion = \"1.0.190\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
		"[[package]]\nname = \"my-util\"\nversion = \"0.2.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
		"[[package]]\nname = \"half\"\nversion = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
		"[[package]]\nname = \"loopy\"\nversion = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
		"[[package]]\nname = \"gone\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
	"ws/src/main.rs": "use serde::Deserialize;\nuse serde::de::from_str;\n\nstruct Config;\n\n" +
		"impl Deserialize for Config {\n    fn deserialize(s: &str) -> Self { Config }\n}\n\n" +
		"fn main() {\n    let n = serde::de::from_str(\"1\");\n    my_util::helper();\n    from_str(\"2\");\n}\n",
}

// Rust: Cargo.lock's registry crates in $CARGO_HOME/registry/src answer
// definitions of use paths and qualified paths, through a crate's
// re-exports; a half-extracted crate, a crate folder that is a symlink
// loop and one not fetched are skipped with their reasons, and a loop
// inside a crate is not followed.
func TestLSPRustIntoCargoRegistry(t *testing.T) {
	e, _ := startSourcesLSP(t, rustFiles, 2, func(dir string) {
		l := filepath.Join(dir, filepath.FromSlash(cargoRegistry), "loopy-0.1.0")
		if err := os.Symlink(l, l); err != nil {
			t.Fatal(err)
		}
		// A loop inside a crate: the scan does not follow it.
		src := filepath.Join(dir, filepath.FromSlash(cargoRegistry), "serde-1.0.190", "src")
		if err := os.Symlink(src, filepath.Join(src, "again")); err != nil {
			t.Fatal(err)
		}
	})
	reg := filepath.ToSlash(filepath.Join(filepath.Dir(e.root), filepath.FromSlash(cargoRegistry))) + "/"
	de := reg + "serde-1.0.190/src/de/mod.rs"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{0, 12, de + ":1"},  // use serde::Deserialize (re-exported by lib.rs)
		{1, 17, de + ":5"},  // use serde::de::from_str
		{5, 7, de + ":1"},   // impl Deserialize
		{10, 24, de + ":5"}, // serde::de::from_str(
		{11, 14, reg + "my-util-0.2.0/src/lib.rs:0"},
		{12, 6, de + ":5"}, // from_str( through the use
	} {
		if got := e.defAt("src/main.rs", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("src/main.rs", 5, 7), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "trait Deserialize") || !strings.Contains(v, "A data structure that can be deserialized.") {
		t.Errorf("hover on Deserialize = %q", v)
	}
	st := e.waitLibraries(2)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	for lib, want := range map[string]string{"half@0.1.0": libraries.Incomplete, "loopy@0.1.0": libraries.LinkLoop, "gone@1.0.0": libraries.NotDownloaded} {
		if reasons[lib] != want {
			t.Errorf("%s skipped for %q, want %q (all: %+v)", lib, reasons[lib], want, st.Skipped)
		}
	}
	for _, l := range st.Indexed {
		if l.Library == "serde@1.0.190" && l.Files != 2 {
			t.Errorf("serde indexed %d files, want 2 (tests left out)", l.Files)
		}
	}
}
