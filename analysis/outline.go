package analysis

import "sort"

// OutlineItem is one declaration of a file's outline.
type OutlineItem struct {
	Def   int32 // index into Defs
	Depth int   // 0 at top level
}

// Outline lists the declarations worth showing in an outline, in source
// order, each nested under its container. Parameters, lambdas and whatever
// is declared inside a function body are left out.
func (f *FileFacts) Outline() []OutlineItem {
	var out []OutlineItem
	for i := range f.Defs {
		if depth, ok := f.outlineDepth(int32(i)); ok {
			out = append(out, OutlineItem{Def: int32(i), Depth: depth})
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		return f.Defs[out[a].Def].FullSpan.Start < f.Defs[out[b].Def].FullSpan.Start
	})
	return out
}

// outlineDepth reports whether def i belongs in the outline, and how deep.
func (f *FileFacts) outlineDepth(i int32) (int, bool) {
	if !f.Defs[i].Kind.IsSymbol() {
		return 0, false
	}
	depth := 0
	for c := f.Defs[i].Container; c != None && int(c) < len(f.Defs); c = f.Defs[c].Container {
		switch f.Defs[c].Kind {
		case KindFunction, KindMethod, KindConstructor, KindLambda:
			return 0, false // a local of a function body
		}
		depth++
	}
	return depth, true
}
