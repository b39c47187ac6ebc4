package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// A registry crate whose Cargo.toml moves its root ([lib] path = "lib.rs")
// and renames it for Rust code ([lib] name), with an inline module inside
// an inline module and a macro exported from a submodule.
var rustLibFiles = map[string]string{
	cargoRegistry + "logs-0.1.0/Cargo.toml": "[package]\nname = \"logs\"\nversion = \"0.1.0\"\n\n" +
		"[lib]\nname = \"logs_core\" # the name code uses\npath = \"lib.rs\"\n",
	cargoRegistry + "logs-0.1.0/lib.rs": "#[macro_use]\nmod macros;\n\npub mod levels {\n    pub fn warn_level() -> u32 { 2 }\n\n" +
		"    pub mod inner {\n        pub struct Deep;\n    }\n}\n\npub fn init() {}\n",
	cargoRegistry + "logs-0.1.0/macros.rs": "/// Writes a note.\n#[macro_export]\nmacro_rules! note {\n    ($m:expr) => { println!(\"{}\", $m) };\n}\n\n" +
		"macro_rules! private_note {\n    () => {};\n}\n",
	// Not the crate's root: [lib] path says lib.rs.
	cargoRegistry + "logs-0.1.0/src/lib.rs": "pub fn init() {}\n",
	"ws/Cargo.toml":                         "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
	"ws/Cargo.lock": "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\n" +
		"[[package]]\nname = \"logs\"\nversion = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
	"ws/src/main.rs": "use logs_core::levels::inner::Deep;\nuse logs_core::note;\n\nfn main() {\n" +
		"    logs_core::init();\n    let n = logs_core::levels::warn_level();\n    logs_core::note!(\"x\");\n" +
		"    note!(\"y\");\n    let d = Deep;\n    logs_core::private_note!();\n}\n",
}

// Rust: a crate's [lib] path and name, items of inline modules
// (`pub mod levels { pub mod inner { … } }`), and `#[macro_export]`
// macros, items of the crate's root wherever defined; a macro without it
// is not.
func TestLSPRustCrateLibPathInlineModulesMacros(t *testing.T) {
	e, _ := startSourcesLSP(t, rustLibFiles, 1, nil)
	crate := filepath.ToSlash(filepath.Join(filepath.Dir(e.root), filepath.FromSlash(cargoRegistry))) + "/logs-0.1.0/"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{0, 32, crate + "lib.rs:7"},    // use …::inner::Deep
		{1, 16, crate + "macros.rs:2"}, // use logs_core::note
		{4, 16, crate + "lib.rs:11"},   // logs_core::init(), not src/lib.rs
		{5, 32, crate + "lib.rs:4"},    // logs_core::levels::warn_level()
		{6, 16, crate + "macros.rs:2"}, // logs_core::note!
		{7, 5, crate + "macros.rs:2"},  // note! through the use
		{8, 13, crate + "lib.rs:7"},    // Deep through the use
		{9, 16, ""},                    // private_note! is not exported
	} {
		if got := e.defAt("src/main.rs", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	if labels := e.completionLabels("src/main.rs", "rust", "fn main() {\n    logs_core::levels::inner::\n}\n", 1, 30); len(labels) != 1 || labels[0] != "Deep" {
		t.Errorf("completion after logs_core::levels::inner:: = %v, want [Deep]", labels)
	}
}

// Rust: `#[macro_use] extern crate x;` in a crate's root brings x's
// exported macros into scope in every module of the crate, and only those.
func TestLSPRustMacroUseExternCrate(t *testing.T) {
	files := map[string]string{}
	for name, text := range rustLibFiles {
		if !strings.HasPrefix(name, "ws/src/") {
			files[name] = text
		}
	}
	files["ws/src/lib.rs"] = "#[macro_use]\nextern crate logs_core;\n\nmod util;\n"
	files["ws/src/util.rs"] = "pub fn run() {\n    note!(\"z\");\n    private_note!();\n}\n"
	e, _ := startSourcesLSP(t, files, 1, nil)
	crate := filepath.ToSlash(filepath.Join(filepath.Dir(e.root), filepath.FromSlash(cargoRegistry))) + "/logs-0.1.0/"
	if got, want := e.defAt("src/util.rs", 1, 5), crate+"macros.rs:2"; got != want {
		t.Errorf("definition of note! = %q, want %q", got, want)
	}
	if got := e.defAt("src/util.rs", 2, 5); got != "" {
		t.Errorf("definition of private_note! = %q, want none: the macro is not exported", got)
	}
}
