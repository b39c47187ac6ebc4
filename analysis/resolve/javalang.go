package resolve

import "github.com/kast-dev/kast/analysis"

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
// declarations (java.lang's types only: it declares nothing else).
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
		for _, c := range r.topLevelIn(f.Lang, pkg, ref.Name, ref.Role, confWildcard) {
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
