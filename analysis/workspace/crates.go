package workspace

import (
	"path/filepath"
	"strings"
)

// RustCrateFiles lists the files of a module path of the library
// crate Rust code names crate (dashes in crate names become underscores).
func (s *Snapshot) RustCrateFiles(crate string, modules []string) ([]string, bool) {
	for _, w := range s.roots {
		if w.Lib == nil || w.Lib.Lang != "rust" || w.Lib.RustName() != crate {
			continue
		}
		// A file that is not there is none the resolver finds: no need to
		// ask the file system.
		return w.Lib.CrateSourceFiles(modules), true
	}
	return nil, false
}

// RustModuleOf names the library crate (as Rust code names it) and the
// module path of a file of a library crate's src/: src/de/mod.rs of serde
// is serde's [de]; ok is false for any other file.
func (s *Snapshot) RustModuleOf(path string) (crate string, modules []string, ok bool) {
	w := owner(s.roots, path)
	if w == nil || w.Lib == nil || w.Lib.Lang != "rust" {
		return "", nil, false
	}
	modules, ok = w.Lib.CrateModuleOf(path)
	return w.Lib.RustName(), modules, ok
}

// RubyRequireFiles lists lib/<feature>.rb of the library gems that have
// it, the gem named like the feature's first segment first.
func (s *Snapshot) RubyRequireFiles(feature string) []string {
	head, _, _ := strings.Cut(feature, "/")
	var first, rest []string
	for _, w := range s.roots {
		if w.Lib == nil || w.Lib.Lang != "ruby" {
			continue
		}
		p := filepath.Join(w.Lib.Dir, "lib", filepath.FromSlash(feature)+".rb")
		if w.Lib.Module == head {
			first = append(first, p)
		} else {
			rest = append(rest, p)
		}
	}
	return append(first, rest...)
}
