package resolve

import (
	"github.com/kast-dev/kast/analysis"
)

// NodePackages is what a workspace knows of its installed node packages.
type NodePackages interface {
	// NodeModuleFiles lists the files an import of specifier ("pkg",
	// "@scope/pkg/sub") names by the package's entry points, best first;
	// ok is false when no installed package serves it.
	NodeModuleFiles(specifier string) (files []string, ok bool)
}

// nodeImported finds name among the top-level declarations of the entry
// files of the package an import names, following their re-exports; ok is
// false when the workspace does not know the package (resolution then
// matches the import path against file paths).
func (r *Resolver) nodeImported(f *analysis.FileFacts, name, specifier string, role analysis.Role, conf float64, depth int) ([]Candidate, bool) {
	np, ok := r.ws.(NodePackages)
	if !ok || f.Lang != "typescript" && f.Lang != "javascript" {
		return nil, false
	}
	files, ok := np.NodeModuleFiles(specifier)
	if !ok {
		return nil, false
	}
	var out []Candidate
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for i, d := range g.Defs {
			if d.Name == name && d.Container == analysis.None {
				out = r.add(out, p, int32(i), conf, ViaImport, role)
			}
		}
		if len(out) > 0 {
			return out, true // the best entry file that declares it
		}
	}
	return r.reexportedIn(files, name, role, conf, depth+1), true
}
