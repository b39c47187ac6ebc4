package resolve

import (
	"maps"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Subtyping for overload binding: an argument whose written type is a class
// of the workspace fits a parameter of one of its supertypes, read from the
// class headers (Kotlin and Java), and no parameter of an unrelated class of
// the workspace: a library class cannot extend one. The standard
// collections' and boxes' own hierarchy is known without their sources.

// libSupers lists, for the standard types a project never declares, the
// supertypes an argument of them is passed as.
var libSupers = map[string][]string{
	"String":             {"CharSequence", "Comparable"},
	"StringBuilder":      {"CharSequence", "Appendable"},
	"Int":                {"Number", "Comparable"},
	"Long":               {"Number", "Comparable"},
	"Double":             {"Number", "Comparable"},
	"Float":              {"Number", "Comparable"},
	"Short":              {"Number", "Comparable"},
	"Byte":               {"Number", "Comparable"},
	"Integer":            {"Number", "Comparable"},
	"Collection":         {"Iterable"},
	"List":               {"Collection", "Iterable"},
	"Set":                {"Collection", "Iterable"},
	"MutableIterable":    {"Iterable"},
	"MutableCollection":  {"Collection", "Iterable", "MutableIterable"},
	"MutableList":        {"List", "Collection", "Iterable", "MutableCollection", "MutableIterable"},
	"MutableSet":         {"Set", "Collection", "Iterable", "MutableCollection", "MutableIterable"},
	"ArrayList":          {"List", "Collection", "Iterable", "MutableList", "MutableCollection", "MutableIterable", "AbstractList"},
	"LinkedList":         {"List", "Collection", "Iterable", "MutableList", "MutableCollection", "MutableIterable", "Deque", "Queue"},
	"HashSet":            {"Set", "Collection", "Iterable", "MutableSet", "MutableCollection", "MutableIterable"},
	"LinkedHashSet":      {"Set", "Collection", "Iterable", "MutableSet", "MutableCollection", "MutableIterable", "HashSet"},
	"TreeSet":            {"Set", "Collection", "Iterable", "MutableSet", "MutableCollection", "MutableIterable", "SortedSet"},
	"AbstractList":       {"List", "Collection", "Iterable", "AbstractCollection"},
	"AbstractSet":        {"Set", "Collection", "Iterable", "AbstractCollection"},
	"AbstractCollection": {"Collection", "Iterable"},
	"MutableMap":         {"Map"},
	"HashMap":            {"Map", "MutableMap"},
	"LinkedHashMap":      {"Map", "MutableMap", "HashMap"},
	"TreeMap":            {"Map", "MutableMap", "SortedMap"},
	"AbstractMap":        {"Map"},
}

// boxes pairs Java's primitives with their boxes: a call may pass one as
// the other, though an overload taking it as it is comes first.
var boxes = map[[2]string]bool{
	{"int", "Integer"}: true, {"long", "Long"}: true, {"double", "Double"}: true, {"float", "Float"}: true,
	{"boolean", "Boolean"}: true, {"char", "Character"}: true, {"short", "Short"}: true, {"byte", "Byte"}: true,
}

// superSet is what the workspace says of a type name's supertypes.
type superSet struct {
	names map[string]int // base names of every supertype, transitively, with their distance
	known bool           // a Kotlin or Java class of the workspace has the name
}

// supersOf collects the supertypes of the Kotlin and Java types called
// name, through their headers' names, once per resolver.
func (r *Resolver) supersOf(name string) superSet {
	return memo(&r.mu, r.superSets, name, func(name string) superSet {
		s := superSet{names: map[string]int{}}
		add := func(n string, dist int) bool {
			if old, ok := s.names[n]; ok && old <= dist || n == name {
				return false
			}
			s.names[n] = dist
			return true
		}
		for _, l := range libSupers[name] {
			add(l, 1)
		}
		type item struct {
			name string
			dist int
		}
		queue := []item{{name, 0}}
		for steps := 0; len(queue) > 0 && steps < 4*maxDepth; steps++ {
			next := queue[0]
			queue = queue[1:]
			for _, e := range r.defs(next.name) {
				if !overloadLangs[e.Lang] || !e.Kind.IsType() || e.Kind == analysis.KindTypeAlias {
					continue
				}
				if next.name == name {
					s.known = true
				}
				g := r.file(e.Path)
				for _, st := range g.Supertypes {
					if st.Def != e.Index {
						continue
					}
					b := baseTypeName(st.Name)
					if !add(b, next.dist+1) {
						continue
					}
					for _, l := range libSupers[b] {
						add(l, next.dist+2)
					}
					queue = append(queue, item{b, next.dist + 1})
				}
			}
		}
		return s
	})
}

// supersIn is supersOf, with the classes of file f declared in bodies,
// which the workspace's name tables may leave out.
func (r *Resolver) supersIn(f *analysis.FileFacts, name string) superSet {
	s := r.supersOf(name)
	if f == nil {
		return s
	}
	var local []int32
	for _, i := range r.named(f, name) {
		if f.Defs[i].Kind.IsType() && DeclaredInBody(f, i) {
			local = append(local, i)
		}
	}
	if len(local) == 0 {
		return s
	}
	out := superSet{names: maps.Clone(s.names), known: true}
	for _, i := range local {
		for _, st := range f.Supertypes {
			if st.Def != i {
				continue
			}
			b := baseTypeName(st.Name)
			out.names[b] = 1
			for n, d := range r.supersOf(b).names {
				if old, ok := out.names[n]; !ok || d+1 < old {
					out.names[n] = d + 1
				}
			}
		}
	}
	return out
}

// isTypeParameter reports whether a Kotlin or Java type parameter of the
// workspace is called name, or nothing else is and the name is one letter:
// such a parameter type may take anything.
func (r *Resolver) isTypeParameter(name string) bool {
	typ := false
	for _, e := range r.defs(name) {
		if e.Kind == analysis.KindTypeParameter {
			return true
		}
		typ = typ || e.Kind.IsType()
	}
	return len(name) <= 1 && !typ
}

// argFit is 1 when an argument of the written type arg fits a parameter of
// type param exactly, 2 when it fits by Java's boxing, 2+k when it fits as
// a subtype k steps below the parameter's type, 0 when it may fit and -1
// when it cannot.
func (r *Resolver) argFit(f *analysis.FileFacts, arg, param string) int {
	param = strings.TrimSpace(param)
	if param == "" || strings.Contains(param, "->") || strings.Contains(arg, "->") {
		return 0
	}
	a := baseTypeName(strings.TrimSuffix(arg, "?"))
	p := baseTypeName(strings.TrimSuffix(param, "?"))
	if alias := r.aliasBase(p); alias != "" {
		p = alias
	}
	if alias := r.aliasBase(a); alias != "" {
		a = alias
	}
	switch {
	case a == p:
		return 1
	case p == "Any" || p == "Object" || r.isTypeParameter(p) || a == "":
		return 0
	case boxes[[2]string{a, p}] || boxes[[2]string{p, a}]:
		return 2
	}
	sup := r.supersIn(f, a)
	if !sup.known && r.isTypeParameter(a) {
		return 0
	}
	if d, ok := sup.names[p]; ok {
		return 2 + d
	}
	if ps := r.supersOf(p); ps.known {
		if _, ok := ps.names[a]; ok {
			// A supertype's value may have been narrowed by a smart cast.
			return 0
		}
		// A class of the workspace: only its own subclasses, all in the
		// workspace, fit it.
		return -1
	}
	switch {
	case collectionTypes[p]:
		if collectionTypes[a] || valueTypes[a] || sup.known && !someCollection(sup.names) {
			return -1
		}
	case valueTypes[a] || valueTypes[p]:
		if !literalSupertypes[p] {
			return -1
		}
	}
	return 0
}

// someCollection reports whether a set of supertypes holds a collection,
// through which a class may be the collection a parameter asks for.
func someCollection(names map[string]int) bool {
	for n := range names {
		if collectionTypes[n] || strings.HasPrefix(n, "Abstract") || strings.HasPrefix(n, "Mutable") {
			return true
		}
	}
	return false
}
