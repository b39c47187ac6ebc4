package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// augmentations are the declarations that module augmentations merge with
// interface d (t), exported by a node package's declaration file: vitest's
// `declare module "@vitest/expect" { interface Assertion<T> {
// toMatchInlineSnapshot … } }` adds members to @vitest/expect's Assertion,
// which tsserver answers for `expect(x).toMatchInlineSnapshot`.
func (r *Resolver) augmentations(t DefID, d analysis.Def) []DefID {
	pkg := nodePackageOf(t.Path)
	if pkg == "" {
		return nil
	}
	var out []DefID
	for _, e := range r.defs(d.Name) {
		if e.Kind != analysis.KindInterface || e.DefID == t {
			continue
		}
		h, x, ok := r.entry(e.DefID)
		if !ok || !ecmaLang(h.Lang) || x.Container == analysis.None {
			continue
		}
		if m := h.Defs[x.Container]; m.Kind == analysis.KindModule && strings.Trim(m.Name, `"'`) == pkg && m.Name != pkg {
			out = append(out, e.DefID)
		}
	}
	return out
}

// nodePackageOf is the name of the node package a file of a node_modules
// folder belongs to ("@vitest/expect"), or "".
func nodePackageOf(path string) string {
	i := strings.LastIndex(path, "/node_modules/")
	if i < 0 {
		return ""
	}
	parts := strings.SplitN(path[i+len("/node_modules/"):], "/", 3)
	if strings.HasPrefix(parts[0], "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}
