package complete

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Go member completions ranked as gopls ranks them, so that the first
// items are the ones a gopls user expects: a value of the type the cursor
// expects first (ten times any other), fields before method calls,
// unexported names of the package before exported ones, and a few "deep"
// completions (w.Header().Clone, resp.Body.Close) after the members whose
// value has members of its own.

// gopls's relevance factors (golang/completion: stdScore, highScore, the
// field and method adjustments, the deep-path penalty).
const (
	goMatchBonus   = 10.0
	goFieldScore   = 1.0 - 0.01
	goMethodCall   = 0.9
	goUnexported   = 1.1
	goDeepMax      = 3 // deep completions kept, as gopls's MaxDeepCompletions
	goDeepHeads    = 4 // members whose values are searched for deep completions
	goDeepPerHead  = 64
	goConstLookups = 4 // steps through a constant group to find a constant's type
)

// rankGoMembers scores the members collected after `qualifier.` and adds
// the deep completions; end is where the name being completed ends.
func (c *collector) rankGoMembers(qualifier string, start, end int, packageMembers bool) {
	qstart := max(0, start-1-len(qualifier))
	exp := c.goExpectation(qstart, end)
	exp.qualifier = qualifier
	word := string(c.text[start:end])
	if exp.assignees > 1 && !exp.known {
		// a, b := x.F(): the names take the types of what is written
		// there, as gopls reads them from the whole statement.
		for _, it := range c.items {
			if it.Label == word {
				if v := goItemValue(it); v.isFunc && len(v.results) == exp.assignees {
					exp.assigneeTypes = c.readGoTypes(it.Def.Path, v.results)
				}
			}
		}
	}
	for i := range c.items {
		c.items[i].Relevance = c.goScore(c.items[i], exp, nil)
	}
	// The deep completions that can rank come from the best members:
	// searching every member's type costs a resolution each.
	heads := slices.Clone(c.items)
	slices.SortStableFunc(heads, func(a, b Item) int { return cmp.Compare(b.Relevance, a.Relevance) })
	c.addGoDeep(heads, exp, packageMembers)
}

// goScore is gopls's score of a member (deep: after the members in path).
func (c *collector) goScore(it Item, exp goExpect, path []Item) float64 {
	v := goItemValue(it)
	score := 1.0
	if it.Kind == analysis.KindField {
		score = goFieldScore
	}
	if !it.Kind.IsType() && it.Kind != analysis.KindModule {
		if f := c.goMatch(it, v, exp); f > 0 {
			score *= goMatchBonus * f
			if exp.used[exp.qualifier+"."+it.Label] {
				score *= 0.9 // another case of the switch has it
			}
		} else if v.isFunc && exp.assignees > 0 && len(v.results) != 1 && !assigneesFit(exp, len(v.results)) {
			score /= 2 // a call that gives too few or too many values
		}
	}
	if it.Kind == analysis.KindMethod {
		score *= goMethodCall
	}
	if !isExported(it.Label[strings.LastIndexByte(it.Label, '.')+1:]) {
		score *= goUnexported
	}
	if len(path) > 0 {
		penalty := 0.0
		for _, p := range path {
			penalty++
			if !isExported(p.Label) {
				penalty -= 0.1
			}
			if p.Kind == analysis.KindMethod || p.Kind == analysis.KindFunction || strings.HasPrefix(goItemValue(p).typ, "func") {
				penalty += 0.1
			}
		}
		score -= score * penalty / 10
	}
	return score * goLabelMatch(c.prefix, it.Label)
}

func assigneesFit(exp goExpect, results int) bool {
	if exp.variadic {
		return results >= exp.assignees-1
	}
	return results == exp.assignees
}

// goMatch is the factor by which it's value fits the expectation, 0 when
// it does not.
func (c *collector) goMatch(it Item, v goValue, exp goExpect) float64 {
	imports := c.importsOf(it.Def.Path)
	if v.isFunc {
		if len(v.results) == 1 && exp.known {
			if t, ok := c.readGoType(it.Def.Path, v.results[0], imports); ok {
				return goTypeMatch(exp.typ, t)
			}
		}
		if len(v.results) > 1 && len(exp.assigneeTypes) > 0 && assigneesFit(exp, len(v.results)) {
			have := c.readGoTypes(it.Def.Path, v.results)
			for i, want := range exp.assigneeTypes {
				if i >= len(have) || want.name == "" || have[i].name == "" || goTypeMatch(want, have[i]) == 0 {
					return 0
				}
			}
			return 1
		}
		return 0
	}
	if !exp.known {
		return 0
	}
	v, _ = c.goConstValue(it, v)
	if v.untyped != "" {
		return goTypeMatch(exp.typ, goType{untyped: v.untyped})
	}
	if t, ok := c.readGoType(it.Def.Path, v.typ, imports); ok {
		return goTypeMatch(exp.typ, t)
	}
	return 0
}

func (c *collector) readGoTypes(path string, written []string) []goType {
	out := make([]goType, len(written))
	for i, w := range written {
		out[i], _ = c.readGoType(path, w, c.importsOf(path))
	}
	return out
}

// importsOf reads a file's imports when a qualified type needs them.
func (c *collector) importsOf(path string) func() []analysis.Import {
	return func() []analysis.Import {
		if path == c.f.Path {
			return c.f.Imports
		}
		if g := c.s.File(path); g != nil {
			return g.Imports
		}
		return nil
	}
}

// goItemValue reads an item's value from its detail; a field or variable
// of a function type is called as a function is.
func goItemValue(it Item) goValue {
	isFunc := it.Kind == analysis.KindMethod || it.Kind == analysis.KindFunction
	v := goDeclValue(it.Label[strings.LastIndexByte(it.Label, '.')+1:], it.Detail, isFunc)
	if !isFunc && strings.HasPrefix(v.typ, "func(") {
		fn := goFuncValue("func F" + strings.TrimPrefix(v.typ, "func"))
		fn.typ = v.typ
		return fn
	}
	return v
}

// goConstValue is the value of a constant written without a type, which
// takes it from its group (March, Bool) or from the typed constant its
// value names (Second = 1000 * Millisecond), with the constant that writes
// the type. Only a match or a deep completion needs it: it reads the
// constant's file's table.
func (c *collector) goConstValue(it Item, v goValue) (goValue, resolve.DefID) {
	if it.Kind != analysis.KindConstant || v.typ != "" || it.Def.Path == "" || !v.implicit && !hasName(v.constVal) {
		return v, it.Def
	}
	defs := c.s.TopLevel(it.Def.Path)
	at := slices.IndexFunc(defs, func(d workspace.TopLevelDef) bool { return d.Index == it.Def.Index })
	for jumps := 0; at >= 0 && v.typ == ""; {
		switch {
		case v.implicit && at > 0 && defs[at-1].Kind == analysis.KindConstant:
			at-- // a group's constants repeat the last written type and value
		case !v.implicit && hasName(v.constVal) && jumps < goConstLookups:
			jumps++
			names := map[string]bool{}
			for _, w := range strings.FieldsFunc(v.constVal, func(r rune) bool { return r > 0x7f || !isIdent(byte(r)) }) {
				names[w] = true
			}
			at = slices.IndexFunc(defs, func(d workspace.TopLevelDef) bool { return d.Kind == analysis.KindConstant && names[d.Name] })
		default:
			return v, it.Def
		}
		if at >= 0 {
			v = goDeclValue(defs[at].Name, defs[at].Detail, false)
		}
	}
	if at < 0 {
		return v, it.Def
	}
	return v, resolve.DefID{Path: it.Def.Path, Index: defs[at].Index}
}

// hasName reports whether a constant expression names something (1000 *
// Millisecond) rather than only literals.
func hasName(expr string) bool {
	for i := 0; i < len(expr); i++ {
		if b := expr[i]; (b == '_' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z') && (i == 0 || !isIdent(expr[i-1]) && expr[i-1] != '.') {
			if !strings.HasPrefix(expr[i:], "iota") {
				return true
			}
		}
	}
	return false
}

// goLabelMatch approximates gopls's fuzzy matcher on a member's label: a
// prefix in its case scores 1, one in another case where the prefix has
// capitals 0.75, a deep completion's chain 0.75, a scattered match less.
func goLabelMatch(prefix, label string) float64 {
	switch {
	case prefix == "":
		return 1
	case strings.Contains(label, "."):
		return 0.75
	case strings.HasPrefix(label, prefix):
		return 1
	case strings.HasPrefix(strings.ToLower(label), strings.ToLower(prefix)):
		if prefix == strings.ToLower(prefix) {
			return 1
		}
		return 0.75
	}
	return 0.375
}

// addGoDeep adds up to goDeepMax completions of a member's member, each
// labelled and inserted as the chain (Header().Clone).
func (c *collector) addGoDeep(heads []Item, exp goExpect, packageMembers bool) {
	type head struct {
		Item
		chain, result string
		typed         resolve.DefID // the declaration that writes the type
	}
	var searched []head
	for _, h := range heads {
		if len(searched) == goDeepHeads {
			break
		}
		if h.Def.Path == "" || h.Kind.IsType() || h.Kind == analysis.KindModule {
			continue
		}
		v, typed := c.goConstValue(h, goItemValue(h))
		chain, result := h.Label+".", v.typ
		if v.isFunc {
			if len(v.params) != 0 || len(v.results) != 1 {
				continue
			}
			chain, result = h.Label+"().", v.results[0]
		} else if v.typ == "" || strings.HasPrefix(v.typ, "[]") || strings.HasPrefix(v.typ, "map[") {
			continue
		}
		if result != "error" && resolve.GoPredeclared(strings.TrimLeft(result, "*")) {
			continue // a predeclared type has no members but error's
		}
		searched = append(searched, head{h, chain, result, typed})
	}
	// gopls meets a type's methods by name, then its fields; a package's
	// names by name.
	slices.SortStableFunc(searched, func(a, b head) int {
		if packageMembers {
			return cmp.Compare(a.Label, b.Label)
		}
		methodA, methodB := a.Kind == analysis.KindMethod, b.Kind == analysis.KindMethod
		if methodA && methodB {
			return cmp.Compare(a.Label, b.Label)
		}
		return cmp.Compare(btoi(!methodA), btoi(!methodB))
	})
	var deep []Item
	membersOf := map[string][]Item{} // by the written type and its folder
	for _, h := range searched {
		key := filepath.Dir(h.Def.Path) + " " + h.result
		members, known := membersOf[key]
		if !known {
			if t, ok := sureType(c.s.Resolver().TypeOf(h.typed), h.typed.Path); ok {
				members = c.goTypeMembers(t)
			}
			membersOf[key] = members
		}
		chain := h.chain
		for _, m := range members[:min(len(members), goDeepPerHead)] {
			if !isExported(m.Label) && filepath.Dir(m.Def.Path) != filepath.Dir(c.f.Path) || c.tooNewGo(m) {
				continue // gopls offers neither
			}
			if !startsFold(h.Label, c.prefix) && !startsFold(m.Label, c.prefix) {
				continue // gopls matches a chain by the start of one of its names
			}
			m.Label = chain + m.Label
			m.Rank = h.Rank
			m.Relevance = c.goScore(m, exp, []Item{h.Item})
			deep = append(deep, m)
		}
	}
	// gopls keeps the best deep candidates it meets, the first of equals.
	slices.SortStableFunc(deep, func(a, b Item) int { return cmp.Compare(b.Relevance, a.Relevance) })
	for _, d := range deep[:min(len(deep), goDeepMax)] {
		if _, dup := c.seen[d.Label]; !dup {
			c.seen[d.Label] = len(c.items)
			d.Score = 1
			c.items = append(c.items, d)
		}
	}
}

// goTypeMembers lists a Go type's methods by name, then its fields (and
// an interface's methods) in the order declared, then its embedded
// types' members.
func (c *collector) goTypeMembers(t resolve.DefID) []Item {
	var out []Item
	seen := map[resolve.DefID]bool{}
	var visit func(t resolve.DefID, depth int)
	visit = func(t resolve.DefID, depth int) {
		g := c.s.File(t.Path)
		if g == nil || seen[t] || depth > 2 || int(t.Index) >= len(g.Defs) {
			return
		}
		seen[t] = true
		name := g.Defs[t.Index].Name
		var methods []Item
		for _, p := range c.s.GoMethodFiles(name) {
			if filepath.Dir(p) != filepath.Dir(t.Path) || !resolve.BuildsWith(c.f.Path, p) {
				continue
			}
			for _, d := range c.s.TopLevel(p) {
				if d.Receiver == name {
					methods = append(methods, Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, owner: name})
				}
			}
		}
		slices.SortFunc(methods, func(a, b Item) int { return cmp.Compare(a.Label, b.Label) })
		out = append(out, methods...)
		for i, d := range g.Defs {
			if d.Container == t.Index && d.Kind != analysis.KindParameter && d.Kind != analysis.KindTypeParameter {
				out = append(out, Item{Label: d.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Def: resolve.DefID{Path: t.Path, Index: int32(i)}, owner: name})
			}
		}
		for _, sup := range navigate.Supertypes(c.s, t) {
			visit(sup.Def, depth+1)
		}
	}
	visit(t, 0)
	return out
}

// sureType picks the type a declaration in file names: a certain one, or
// among guesses the one its package declares (reflect's Kind, not abi's).
func sureType(types []resolve.Candidate, file string) (resolve.DefID, bool) {
	for _, t := range types {
		if !t.Uncertain || filepath.Dir(t.Def.Path) == filepath.Dir(file) {
			return t.Def, true
		}
	}
	return resolve.DefID{}, false
}

func startsFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
