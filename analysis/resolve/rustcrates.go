package resolve

import (
	"cmp"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Rust paths into library crates: `use serde::de::Deserialize` and
// `serde::de::from_str(...)` name the crate serde's module de, the file
// src/de.rs or src/de/mod.rs of the crate's folder, which the workspace
// maps the crate's name to.

// RustCrates is what a workspace knows of its library crates.
type RustCrates interface {
	// RustCrateFiles lists the files of the module path modules of the
	// crate Rust code names crate (dashes as underscores), best first;
	// ok is false when no library crate has the name.
	RustCrateFiles(crate string, modules []string) (files []string, ok bool)
}

// rustImported finds name among the top-level declarations of the module
// of a library crate that the path pkg names, following the module's
// re-exports (`pub use de::Deserialize` in lib.rs); ok is false when pkg
// does not start with a library crate's name.
func (r *Resolver) rustImported(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	rc, ok := r.ws.(RustCrates)
	if !ok || f.Lang != "rust" || pkg == "" {
		return nil, false
	}
	segs := strings.Split(strings.TrimPrefix(pkg, "::"), "::")
	switch segs[0] {
	case "crate", "self", "super", "Self":
		return nil, false
	}
	files, ok := rc.RustCrateFiles(segs[0], segs[1:])
	if !ok {
		return nil, false
	}
	return r.declaredAtTopOf(files, name, role, conf, depth), true
}

// rustInCrate resolves a qualified Rust path whose qualifier starts with a
// library crate, or with a name a `use` binds to a path into one
// (`use serde::de; de::from_str`).
func (r *Resolver) rustInCrate(f *analysis.FileFacts, ref analysis.Ref) ([]Candidate, bool) {
	if f.Lang != "rust" || ref.Qualifier == "" {
		return nil, false
	}
	head, rest, _ := strings.Cut(ref.Qualifier, "::")
	for _, imp := range f.Imports {
		if !imp.Wildcard && cmp.Or(imp.Alias, imp.Name) == head {
			head = imp.Path
			break
		}
	}
	if rest != "" {
		head += "::" + rest
	}
	return r.rustImported(f, ref.Name, head, ref.Role, confImport, 0)
}
