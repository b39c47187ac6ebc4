package resolve

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Default imports: every Java file imports java.lang implicitly (String,
// Object, Integer), every Kotlin file the kotlin packages below (listOf,
// println, Pair). A plain name no declaration, import or package brings
// in is looked up there: in the JDK's and kotlin-stdlib's sources when
// they are indexed.

var defaultImports = map[string][]string{
	"java": {"java.lang"},
	"kotlin": {"kotlin", "kotlin.annotation", "kotlin.collections", "kotlin.comparisons", "kotlin.io", "kotlin.ranges",
		"kotlin.sequences", "kotlin.text", "kotlin.jvm", "java.lang"},
}

// defaultImported finds a plain name among the default imports' top-level
// declarations (java.lang's types only: it declares nothing else). They
// are as sure as an explicit import: every nearer declaration was looked
// at first.
func (r *Resolver) defaultImported(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	pkgs := defaultImports[f.Lang]
	if len(pkgs) == 0 || ref.Qualifier != "" {
		return nil
	}
	for _, pkg := range pkgs {
		if pkg == f.Package {
			continue // the package's own declarations were looked at
		}
		var out []Candidate
		for _, c := range r.topLevelIn(f.Lang, pkg, ref.Name, ref.Role, confImport) {
			g := r.file(c.Def.Path)
			if g != nil && (g.Lang == "kotlin" || g.Defs[c.Def.Index].Kind.IsType()) {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out // the first package that declares it
		}
	}
	return nil
}

// rootTypes are the types every class of a language extends without
// saying so, by package and name.
var rootTypes = map[string][2]string{"java": {"java.lang", "Object"}, "kotlin": {"kotlin", "Any"}}

// rootMember finds name among the members of the type every Java class
// extends (java.lang.Object) or every Kotlin class (kotlin.Any), when
// they are indexed: `x.equals(y)`, `getClass()` on a type that declares
// neither.
func (r *Resolver) rootMember(t DefID, name string, role analysis.Role, conf float64) []Candidate {
	g := r.file(t.Path)
	root, ok := rootTypes[g.Lang]
	if !ok {
		return nil
	}
	for _, o := range r.topLevelIn(g.Lang, root[0], root[1], analysis.RoleType, conf) {
		if o.Def != t && r.file(o.Def.Path).Defs[o.Def.Index].Kind.IsType() {
			return r.declared(o.Def, name, role, conf)
		}
	}
	return nil
}

// appendNew appends the candidates of found that out does not hold: two
// supertypes may both pass on java.lang.Object's member.
func appendNew(out, found []Candidate) []Candidate {
	for _, c := range found {
		if !slices.ContainsFunc(out, func(o Candidate) bool { return o.Def == c.Def }) {
			out = append(out, c)
		}
	}
	return out
}

// javaCast matches a parenthesized Java cast qualifier, `((T) x)`, T a
// type name (upper-case, or a qualified one ending so) with type
// arguments or array brackets.
var javaCast = regexp.MustCompile(`^\(\(((?:[\w]+\.)*[A-Z]\w*(?:<.*>)?(?:\[\])*)\)\s*(?s:.+)\)$`)

// javaQualifierType is the type of a Java cast qualifier, or Class for a
// class literal (`Map.class.isAssignableFrom`), or "".
func javaQualifierType(q string) string {
	if m := javaCast.FindStringSubmatch(q); m != nil {
		return m[1]
	}
	if t, ok := strings.CutSuffix(q, ".class"); ok && isName(t) {
		return "Class"
	}
	return ""
}
