package resolve

import "strings"

// RubyGems is what a workspace knows of its installed gems.
type RubyGems interface {
	// RubyRequireFiles lists the gem files `require feature` loads:
	// lib/<feature>.rb of the gems that have it.
	RubyRequireFiles(feature string) []string
}

// RequireAt is the gem file a Ruby `require 'feature'` at offset loads,
// when a library gem has it: definition on the require goes there.
func (r *Resolver) RequireAt(file string, offset int) (string, bool) {
	f := r.file(file)
	rg, ok := r.ws.(RubyGems)
	if f == nil || f.Lang != "ruby" || !ok {
		return "", false
	}
	for _, imp := range f.Imports {
		if !imp.Span.Contains(offset) || imp.Path == "" || strings.HasPrefix(imp.Path, ".") || strings.Contains(imp.Path, "..") {
			continue
		}
		for _, p := range rg.RubyRequireFiles(imp.Path) {
			if g := r.file(p); g != nil && g.Lang == "ruby" {
				return p, true
			}
		}
	}
	return "", false
}
