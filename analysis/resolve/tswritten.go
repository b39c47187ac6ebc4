package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// writtenTypesAt are the written types of the value qualifier ref.Qualifier
// of a TypeScript file names, each with the file and scope that write it:
// `err.issues[0]`'s element type `$ZodIssue` is a name of the file that
// declares issues, not of the file that indexes it.
func (r *Resolver) writtenTypesAt(f *analysis.FileFacts, ref analysis.Ref, depth int) []contextType {
	q := strings.ReplaceAll(strings.TrimRight(ref.Qualifier, "!"), "?.", ".")
	if t, g, scope, at := r.narrowed(f, ref, q, depth); g != nil {
		return []contextType{{g, t, scope, at}}
	}
	var out []contextType
	if !r.tooDeep(f.Lang, depth) {
		qref := ref
		qref.Role, qref.Args = analysis.RoleRead, ""
		name := q
		if callee, ok := calleeOf(q); ok && !strings.HasPrefix(q, "new ") {
			qref.Role, name = analysis.RoleCall, callee
		}
		if isName(name) || isChain(f.Lang, strings.ReplaceAll(name, "!.", ".")) {
			qref.Qualifier, qref.Name = splitQualifier(name)
			for _, c := range best(r.resolve(f, qref, depth)) {
				g, d, ok := r.entry(c.Def)
				if !ok || c.Confidence < r.threshold || d.Kind.IsType() {
					continue
				}
				if d.TypeName == "" && d.Value != "" && d.Value != tsObjectValue && ecmaLang(g.Lang) && qref.Role == analysis.RoleRead {
					vref := valueRef(d)
					vref.Qualifier = d.Value
					out = append(out, r.writtenTypesAt(g, vref, depth+1)...)
					continue
				}
				if d.TypeName == "" {
					continue
				}
				t := d.TypeName
				if qref.Role == analysis.RoleCall {
					t = calledType(g.Lang, t)
				}
				if strings.TrimSpace(t) == "this" {
					continue
				}
				out = append(out, contextType{g, t, d.Scope, d.NameSpan})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, t := range r.writtenTypes(f, ref, depth) {
		out = append(out, contextType{f, t, ref.Scope, ref.Span})
	}
	return out
}
