package resolve

import "github.com/kast-dev/kast/analysis"

// javaLang finds a plain name no declaration, import or package of a Java
// file brings in among the types of java.lang, which every Java file
// imports implicitly (String, Object, Integer): the JDK's sources when the
// Java standard library is indexed.
func (r *Resolver) javaLang(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Lang != "java" || ref.Qualifier != "" || f.Package == "java.lang" {
		return nil
	}
	var out []Candidate
	for _, c := range r.topLevelIn("java", "java.lang", ref.Name, ref.Role, confWildcard) {
		if g := r.file(c.Def.Path); g != nil && g.Lang == "java" && g.Defs[c.Def.Index].Kind.IsType() {
			out = append(out, c)
		}
	}
	return out
}
