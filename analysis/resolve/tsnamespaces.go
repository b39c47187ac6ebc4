package resolve

import "github.com/kast-dev/kast/analysis"

// NamespaceModuleAt is the file of the module that the name at offset
// stands for when tsserver answers the module itself rather than a
// binding of it. tsserver's definition follows an alias to what it names,
// except the alias of `import * as z` at its uses in its own file; so
// `z.core` after `export * as core from "../core"`, a name imported from
// another file that is such a binding (`import { z } from "zod"`) and the
// exported name of `export { z4 as default }` answer the module's file,
// at its start, while `z.string()` below `import * as z` answers the import.
// cands are what DefinitionAt answers at offset.
func (r *Resolver) NamespaceModuleAt(file string, offset int, cands []Candidate) (string, bool) {
	f := r.file(file)
	if f == nil || !ecmaLang(f.Lang) {
		return "", false
	}
	if local, ok := exportedAliasAt(f, offset); ok {
		// The name exported is the file's own declaration's, whatever
		// other files bind under that name.
		for i, d := range f.Defs {
			if d.Name == local && d.Container == analysis.None {
				return r.namespaceModule(DefID{file, int32(i)})
			}
		}
		return "", false
	}
	if len(cands) == 0 || cands[0].Uncertain || cands[0].Def.Path == file && cands[0].Via != ViaSelf {
		return "", false
	}
	return r.namespaceModule(cands[0].Def)
}

// namespaceModule is the first file of the module that namespace binding
// t binds.
func (r *Resolver) namespaceModule(t DefID) (string, bool) {
	g, module, ok := r.namespaceImportOf(t)
	if !ok {
		return "", false
	}
	for _, p := range r.ecmaModuleFiles(g.Path, module) {
		if r.file(p) != nil {
			return p, true
		}
	}
	return "", false
}

// exportedAliasAt is, when offset is on the exported name of a local
// export under another name (`default` in `export { z as default }`), the
// local name it exports.
func exportedAliasAt(f *analysis.FileFacts, offset int) (string, bool) {
	i := refAt(f, offset)
	if i == analysis.None {
		return "", false
	}
	ref := f.Refs[i]
	for _, imp := range f.Imports {
		if imp.Path == "" && imp.Alias == ref.Name && imp.Name != ref.Name && imp.Span.Contains(ref.Span.Start) {
			return imp.Name, true
		}
	}
	return "", false
}
