package modules

import "slices"

// Listed is a module as a workspace listing shows it, with its files.
type Listed struct {
	Name                      string
	SourceRoots, Dependencies []string
	Files                     []string // sorted
}

// List groups a workspace's files by module: a module's files are those
// under its source roots. The others (build scripts, files outside any
// module), or all files when the workspace has no build model, form one
// more module called rootName whose source root is root.
func List(root, rootName string, files []string) []Listed {
	m := Load(root)
	byName := map[string]int{}
	out := make([]Listed, 0, len(m.Modules)+1)
	for _, mod := range m.Modules {
		byName[mod.Name] = len(out)
		out = append(out, Listed{Name: mod.Name, SourceRoots: mod.SourceRoots, Dependencies: mod.Dependencies, Files: []string{}})
	}
	var rest []string
	for _, f := range files {
		if mod, ok := m.sourceModuleOf(f); ok {
			l := &out[byName[mod.Name]]
			l.Files = append(l.Files, f)
		} else {
			rest = append(rest, f)
		}
	}
	if len(m.Modules) == 0 || len(rest) > 0 {
		name := rootName
		if _, taken := byName[name]; taken {
			name += "-root"
		}
		out = append(out, Listed{Name: name, SourceRoots: []string{root}, Dependencies: []string{}, Files: append([]string{}, rest...)})
	}
	for i := range out {
		slices.Sort(out[i].Files)
	}
	return out
}

// sourceModuleOf is the module whose source root holds path most closely.
func (m Model) sourceModuleOf(path string) (Module, bool) {
	best, bestLen := -1, -1
	for i, mod := range m.Modules {
		for _, dir := range mod.SourceRoots {
			if within(path, dir) && len(dir) > bestLen {
				best, bestLen = i, len(dir)
			}
		}
	}
	if best < 0 {
		return Module{}, false
	}
	return m.Modules[best], true
}
