// Plain names found where they are declared: the scope chain and the package.

package resolve

import "github.com/kast-dev/kast/analysis"

// unqualified runs the stages that find a plain name where it is declared or
// imported; what they miss is left to byName.
func (r *Resolver) unqualified(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	if c := r.inScope(f, ref, depth); len(c) > 0 {
		return c
	}
	// An explicit import shadows a same-package declaration (Kotlin, Java);
	// a wildcard import does not.
	if c := r.explicitImport(f, ref); len(c) > 0 {
		return c
	}
	if f.Lang == "go" && goImportsPackage(f, ref.Name) {
		// The file's import is in its file block: a package-level name
		// of another file that built with it would not compile, so one
		// that exists is in a file built with other tags (gin's json.go
		// imports encoding/json, jsoniter.go declares var json).
		return nil
	}
	if c := r.inPackage(f, ref); len(c) > 0 {
		return c
	}
	if c := r.wildcardImports(f, ref); len(c) > 0 {
		return c
	}
	return r.rustMacroUse(f, ref)
}

// inScope walks the scope chain outwards. In a scope owned by a type, the
// type's inherited members and, for extension functions, the receiver's
// members are visible too.
func (r *Resolver) inScope(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	var out []Candidate
	for s := ref.Scope; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		owner := f.Scopes[s].Def
		local := localScope(f, s, owner)
		for _, i := range r.namedIn(f, s, ref.Name) {
			d := f.Defs[i]
			if hiddenFrom(f.Lang, d, s, ref, local) || f.Lang == "go" && d.Kind == analysis.KindMethod ||
				f.Lang == "kotlin" && d.Kind == analysis.KindParameter && constructorParamHidden(f, owner, ref) {
				// A Go method is never named plainly: Run() is a function.
				continue
			}
			via := ViaScope
			conf := confScope
			if owner != analysis.None && f.Defs[owner].Kind.IsType() {
				via = ViaMember
				conf = confMember
			}
			out = r.add(out, f.Path, i, conf, via, ref.Role)
		}
		if local && len(out) > 1 {
			// A later binding in the same block shadows an earlier one.
			out = out[len(out)-1:]
		}
		if len(out) > 0 {
			return out
		}
		// A supertype's name is never one of the members it brings in. Go
		// has no implicit receiver: a plain name in a method or a type
		// is never one of its members (fmt.Println in a method of a type
		// with a field fmt is the package's).
		if owner == analysis.None || ref.Role&analysis.RoleInheritance != 0 || f.Lang == "go" {
			continue
		}
		if od := f.Defs[owner]; od.Kind.IsType() {
			if f.Lang == "kotlin" {
				if out = r.ownExtensions(od.Name, ref); len(out) > 0 {
					return out
				}
			}
			inherited := func(name string, role analysis.Role) []Candidate {
				return r.inherited(DefID{f.Path, owner}, name, role, confInherited, depth+1)
			}
			switch f.Lang {
			case "kotlin":
				out = append(out, r.kotlinView(inherited, ref.Name, ref.Role)...)
				if len(out) == 0 {
					out = r.companionMembers(f, owner, ref)
				}
			case "java":
				out = append(out, r.javaView(DefID{f.Path, owner}, "", inherited, ref, confInherited)...)
			default:
				out = append(out, inherited(ref.Name, ref.Role)...)
			}
		} else if od.Receiver != "" {
			for _, t := range r.typesNamed(f, od.Receiver, od.Scope, od.NameSpan, depth+1) {
				out = append(out, r.members(t.Def, ref.Name, ref.Role, confMember*t.Confidence, depth+1)...)
			}
		} else if od.Kind == analysis.KindLambda && od.Value != "" {
			out = r.lambdaMembers(f, od, ref, depth)
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// inPackage looks at top-level declarations of the other files of the same
// package (same directory for Go, whose packages are directories). The
// name tables say which files declare the name at all, and where: only the
// files of those in the package's directory are decoded.
func (r *Resolver) inPackage(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Package == "" {
		return nil
	}
	var out []Candidate
	entries := r.defs(ref.Name)
	if f.Lang == "go" {
		entries = r.topLevelInDirs(ref.Name, dirOf(f.Path))
	}
	for _, e := range entries {
		if e.Path == f.Path || e.Nested || !sameFamily(e.Lang, f.Lang) || f.Lang == "go" && !sameDir(e.Path, f.Path) ||
			f.Lang == "go" && e.Kind == analysis.KindMethod {
			continue
		}
		g := r.file(e.Path)
		if g == nil || !sameFamily(g.Lang, f.Lang) || g.Package != f.Package {
			continue
		}
		if d := g.Defs[e.Index]; d.Container == analysis.None && d.Receiver == "" {
			out = r.add(out, e.Path, e.Index, confPackage, ViaPackage, ref.Role)
		}
	}
	return out
}
