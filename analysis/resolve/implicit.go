package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Implicit receivers: a Kotlin call without a qualifier inside a class or
// an extension may call an extension of the receiver's class or of its
// supertypes; those and the arguments choose among the overloads.

// implicitReceivers keeps, among the n tied best candidates of a call
// without a qualifier, the extensions whose receiver an enclosing class or
// extension supplies as `this`, when one does: those on the nearest
// receiver's class and on its supertypes, which the arguments then tell
// apart. recv maps each kept extension to 0 on the receiver's own class,
// 1 on a supertype.
func (r *Resolver) implicitReceivers(f *analysis.FileFacts, ref analysis.Ref, c []Candidate, n int) ([]Candidate, int, map[DefID]int) {
	// The distance of each implicit receiver: enclosing types and extension
	// receivers nearest first, a supertype one further than its subtype.
	receivers := map[string]int{}
	written := map[string]string{} // an extension receiver's type as written
	at := func(name string, dist int) {
		if old, ok := receivers[name]; !ok || dist < old {
			receivers[name] = dist
		}
	}
	dist := 0
	for def := ref.Enclosing; def != analysis.None && int(def) < len(f.Defs); def = f.Defs[def].Container {
		d := f.Defs[def]
		name := ""
		switch {
		case d.Kind.IsType():
			name = d.Name
		case d.Receiver != "":
			name = baseTypeName(d.Receiver)
			if _, ok := written[name]; !ok {
				written[name] = d.Receiver
			}
		default:
			continue
		}
		at(name, dist)
		for s := range r.supersOf(name).names {
			at(s, dist+1)
		}
		for _, s := range f.Supertypes {
			if s.Def == def {
				at(baseTypeName(s.Name), dist+1)
			}
		}
		dist += 2
	}
	// An extension on a typealias is on the type it stands for.
	recvName := func(d analysis.Def) string {
		b := baseTypeName(d.Receiver)
		if _, ok := receivers[b]; !ok && f.Lang == "kotlin" {
			if a := r.aliasBase(b); a != "" {
				return a
			}
		}
		return b
	}
	nearest := -1
	for _, x := range c[:n] {
		if d := r.file(x.Def.Path).Defs[x.Def.Index]; d.Receiver != "" {
			if k, ok := receivers[recvName(d)]; ok && (nearest < 0 || k < nearest) {
				nearest = k
			}
		}
	}
	if nearest%2 == 1 {
		nearest-- // only a supertype of the nearest receiver has an extension
	}
	recvDist := func(x Candidate) (int, bool) {
		d := r.file(x.Def.Path).Defs[x.Def.Index]
		k, ok := receivers[recvName(d)]
		if d.Receiver == "" || !ok || k != nearest && k != nearest+1 ||
			typeArgsClash(d.Receiver, written[baseTypeName(d.Receiver)]) {
			return 0, false
		}
		return k - nearest, true
	}
	if nearest < 0 || !slices.ContainsFunc(c[:n], func(x Candidate) bool { _, ok := recvDist(x); return ok }) {
		return c, n, nil
	}
	out := c[:0:0]
	kept := 0
	recv := map[DefID]int{}
	for i, x := range c {
		if i < n {
			k, fits := recvDist(x)
			if d := r.file(x.Def.Path).Defs[x.Def.Index]; d.Receiver != "" && !fits {
				continue
			}
			if fits {
				recv[x.Def] = k
			}
			kept++
		}
		out = append(out, x)
	}
	return out, kept, recv
}

// nearestReceivers drops, from the n tied best candidates, the extensions
// on a supertype of the implicit receiver when one on its own class is
// there.
func nearestReceivers(c []Candidate, n int, recv map[DefID]int) []Candidate {
	own := false
	for _, x := range c[:n] {
		if k, ok := recv[x.Def]; !ok || k == 0 {
			own = true
		}
	}
	if !own {
		return c
	}
	out := c[:0:0]
	for i, x := range c {
		if i < n && recv[x.Def] == 1 {
			continue
		}
		out = append(out, x)
	}
	return out
}

// typeArgsClash reports whether an extension declared on the written type
// decl cannot take a receiver of the written type actual, the same class
// with other type arguments: `OptionWithValues<Boolean, Boolean, Boolean>`
// takes no `OptionWithValues<T?, T, T>`. Only arguments that are value
// types (Boolean, String, Int…) are compared.
func typeArgsClash(decl, actual string) bool {
	da, aa := typeArgs(decl), typeArgs(actual)
	if len(da) == 0 || len(da) != len(aa) {
		return false
	}
	for i := range da {
		d, a := da[i], aa[i]
		if valueTypes[strings.TrimSuffix(d, "?")] && a != "*" && a != d {
			return true
		}
	}
	return false
}

// typeArgs splits the type arguments of a written type, without variance.
func typeArgs(t string) []string {
	open := strings.IndexByte(t, '<')
	if open < 0 || !strings.HasSuffix(strings.TrimSpace(t), ">") {
		return nil
	}
	inner := strings.TrimSpace(t)[open+1 : len(strings.TrimSpace(t))-1]
	var out []string
	for _, a := range splitParams(inner) {
		a = strings.TrimSpace(a)
		a = strings.TrimPrefix(strings.TrimPrefix(a, "out "), "in ")
		out = append(out, strings.ReplaceAll(a, " ", ""))
	}
	return out
}
