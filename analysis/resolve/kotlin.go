package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Kotlin Multiplatform: an `expect` declaration of common code and its
// `actual` declarations share a name and a package, so they come out of
// resolution tied. All stay listed, the JVM `actual` first: a JVM build
// binds there, as the compiler does.

// preferActual moves, among the tied best candidates, the JVM actual
// declarations first, then the other actuals.
func (r *Resolver) preferActual(c []Candidate) []Candidate {
	if len(c) == 0 || !strings.HasSuffix(c[0].Def.Path, ".kt") {
		return c
	}
	c = r.withActuals(c)
	n := topTies(c)
	if n < 2 {
		return c
	}
	rank := func(x Candidate) int {
		d := r.file(x.Def.Path).Defs[x.Def.Index]
		if !hasModifier(d.Signature, "actual") {
			return 0
		}
		if jvmSourceSet(x.Def.Path) {
			return 2
		}
		return 1
	}
	slices.SortStableFunc(c[:n], func(a, b Candidate) int { return rank(b) - rank(a) })
	return c
}

// constructorParamHidden reports whether a parameter of the primary
// constructor of class owner is out of sight at ref: inside a member
// function's body only the class's properties are (`val names =
// names.toImmutableList()` hides the parameter from the methods).
func constructorParamHidden(f *analysis.FileFacts, owner int32, ref analysis.Ref) bool {
	if owner == analysis.None || !f.Defs[owner].Kind.IsType() {
		return false
	}
	for def := ref.Enclosing; def != analysis.None && def != owner && int(def) < len(f.Defs); def = f.Defs[def].Container {
		switch f.Defs[def].Kind {
		case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor:
			return true
		}
	}
	return false
}

// hasModifier reports whether a declaration's header carries the modifier
// word before its name.
func hasModifier(sig, word string) bool {
	for _, w := range strings.Fields(sig) {
		switch w {
		case word:
			return true
		case "class", "interface", "object", "fun", "val", "var", "typealias", "constructor":
			return false
		}
	}
	return false
}

// jvmSourceSet reports whether a path is in a Kotlin source set compiled
// for the JVM (jvmMain, jvmTest, androidMain, a plain src/main).
func jvmSourceSet(path string) bool {
	for _, s := range []string{"/jvmMain/", "/jvmTest/", "/androidMain/", "/jvm/", "/src/main/", "/src/test/"} {
		if strings.Contains(path, s) {
			return true
		}
	}
	return false
}

// ambiguous reports whether the uses of a reference are overloads that its
// arguments do not tell apart: callables with different parameter lists
// (an expect function and its actuals have the same).
func (r *Resolver) ambiguous(uses []Candidate) bool {
	if len(uses) < 2 {
		return false
	}
	var shapes []string
	for _, u := range uses {
		d := r.file(u.Def.Path).Defs[u.Def.Index]
		if !isCallable(d.Kind) {
			continue
		}
		shape := OverloadShape(d)
		if shape == "" {
			return true
		}
		if !slices.Contains(shapes, shape) {
			shapes = append(shapes, shape)
		}
	}
	return len(shapes) > 1
}

// withActuals adds, after a best candidate that is a top-level `expect`
// declaration found alone (a use in its own file or package), the `actual`
// declarations of its package, as sure as it.
func (r *Resolver) withActuals(c []Candidate) []Candidate {
	top := c[0]
	f := r.file(top.Def.Path)
	d := f.Defs[top.Def.Index]
	if d.Container != -1 || !hasModifier(d.Signature, "expect") {
		return c
	}
	var actuals []Candidate
	for _, e := range r.defs(d.Name) {
		if e.Nested || e.Lang != "kotlin" || e.Kind != d.Kind || slices.ContainsFunc(c, func(x Candidate) bool { return x.Def == e.DefID }) {
			continue
		}
		g := r.file(e.Path)
		if g == nil || g.Package != f.Package {
			continue
		}
		if a := g.Defs[e.Index]; a.Container == -1 && hasModifier(a.Signature, "actual") {
			actuals = append(actuals, r.candidate(e.DefID, top.Confidence, top.Via))
		}
	}
	if len(actuals) == 0 {
		return c
	}
	return append(append(actuals, c[0]), c[1:]...)
}

// aliasBase is the base type a Kotlin typealias called name stands for
// (`typealias NullableOption<T> = OptionWithValues<T?, T>` → OptionWithValues),
// or "": an extension declared on the alias is a member of that type.
func (r *Resolver) aliasBase(name string) string {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	return memo(&r.mu, r.aliases, name, func(name string) string {
		for _, e := range r.defs(name) {
			if e.Kind != analysis.KindTypeAlias || e.Lang != "kotlin" {
				continue
			}
			if d := r.file(e.Path).Defs[e.Index]; d.TypeName != "" {
				return baseTypeName(d.TypeName)
			}
		}
		return ""
	})
}

// ownExtensions are the extensions of the class called typeName, seen as
// members inside it: they come before its supertypes' members. A call
// also sees the extensions of its supertypes beside them: the arguments
// choose among them (bindOverloads).
func (r *Resolver) ownExtensions(typeName string, ref analysis.Ref) []Candidate {
	var out []Candidate
	for _, m := range r.methodsNamed(ref.Name) {
		if m.receiver == typeName {
			out = r.add(out, m.id.Path, m.id.Index, confMember, ViaMember, ref.Role)
		}
	}
	if len(out) == 0 || ref.Role&analysis.RoleCall == 0 {
		return out
	}
	supers := r.supersOf(typeName).names
	for _, m := range r.methodsNamed(ref.Name) {
		if _, ok := supers[m.receiver]; ok {
			out = r.add(out, m.id.Path, m.id.Index, confMember, ViaMember, ref.Role)
		}
	}
	return out
}

// nestedTypeMembers finds name among the members of a nested type an
// import names: `import a.Outer.Companion.member` (Kotlin),
// `import static a.Outer.Inner.CONST` (Java).
func (r *Resolver) nestedTypeMembers(f *analysis.FileFacts, name, pkg, typeName string, role analysis.Role, conf float64, depth int) []Candidate {
	outerPkg, outer := splitQualifier(pkg)
	if outerPkg == "" || !isName(outerPkg) {
		return nil
	}
	var out []Candidate
	for _, o := range r.topLevelIn(f.Lang, outerPkg, outer, analysis.RoleType, conf) {
		for _, t := range r.members(o.Def, typeName, analysis.RoleType, conf, depth+1) {
			if t.Kind.IsType() {
				out = append(out, r.members(t.Def, name, role, conf, depth+1)...)
			}
		}
	}
	return out
}

// companionMembers finds a plain name among the members of the companion
// object of class owner: inside the class they are in scope after its own
// and inherited members (`NAMES` of `companion object { val NAMES }`).
func (r *Resolver) companionMembers(f *analysis.FileFacts, owner int32, ref analysis.Ref) []Candidate {
	for i, d := range f.Defs {
		if d.Container == owner && isCompanion(f, int32(i)) {
			return r.declared(DefID{f.Path, int32(i)}, ref.Name, ref.Role, confMember)
		}
	}
	return nil
}

// kotlinIndexedTypes types a Kotlin qualifier that indexes a collection,
// `parts[i]` of `parts[i].trim()`: the element type of the declared
// collection type (List<String> → String); ok is false for any other
// qualifier.
func (r *Resolver) kotlinIndexedTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) ([]Candidate, bool) {
	if f.Lang != "kotlin" {
		return nil, false
	}
	qref, ok := indexedBase(f, ref, q)
	if !ok {
		return nil, false
	}
	var out []Candidate
	for _, t := range r.writtenTypes(f, qref, depth+1) {
		e := firstTypeArg(t)
		if baseTypeName(t) == "String" {
			e = "Char"
		}
		if e != "" {
			out = append(out, r.typesNamed(f, e, ref.Scope, ref.Span, depth+1)...)
		}
	}
	return out, true
}
