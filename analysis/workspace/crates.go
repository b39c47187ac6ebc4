package workspace

import "github.com/kast-dev/kast/analysis/libraries"

// RustCrateFiles lists the files of a module path of the library
// crate Rust code names crate (dashes in crate names become underscores).
func (s *Snapshot) RustCrateFiles(crate string, modules []string) ([]string, bool) {
	for _, w := range s.roots {
		if w.Lib == nil || w.Lib.Lang != "rust" || libraries.CrateName(w.Lib.Module) != crate {
			continue
		}
		// A file that is not there is none the resolver finds: no need to
		// ask the file system.
		return w.Lib.CrateSourceFiles(modules), true
	}
	return nil, false
}
