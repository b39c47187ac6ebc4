package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Kotlin and Java compile to one class model: each sees the other's
// classes, and names some of the other's members differently (a Java
// getter is a Kotlin property, a Kotlin top-level function a static method
// of its file's facade class).

// sameFamily reports whether a file in language a may name a declaration
// written in language b.
func sameFamily(a, b string) bool { return a == b || jvmPartner(a) == b }

// jvmPartner is the other JVM language of lang, or "".
func jvmPartner(lang string) string {
	switch lang {
	case "kotlin":
		return "java"
	case "java":
		return "kotlin"
	}
	return ""
}

// kotlinView finds `name` written in Kotlin among members that lookup
// finds by name, as Kotlin sees Java's: a Java field unless private, or,
// for a name that is not called, the getter or setter the property stands
// for (getName and setName for `name`, isActive and setActive for
// `isActive`).
func (r *Resolver) kotlinView(lookup func(name string, role analysis.Role) []Candidate, name string, role analysis.Role) []Candidate {
	found := lookup(name, role)
	if role&analysis.RoleCall != 0 {
		return found
	}
	var out []Candidate
	for _, c := range found {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		// A Java method is never read as a property under its own name,
		// and a private field is hidden behind its accessors.
		if g.Lang == "java" && (d.Kind == analysis.KindMethod || d.Visibility == "private") {
			continue
		}
		out = append(out, c)
	}
	if len(out) > 0 {
		return out
	}
	write := role&analysis.RoleWrite != 0
	for _, getter := range getterNames(name) {
		if !r.declaredIn("java", getter) {
			continue // the name tables spare the member lookups
		}
		for _, c := range lookup(getter, analysis.RoleRead) {
			g := r.file(c.Def.Path)
			if g.Lang != "java" || !isGetter(g.Defs[c.Def.Index]) {
				continue
			}
			if !write {
				out = append(out, c)
				continue
			}
			setter := "set" + strings.TrimPrefix(getter, "get")
			if isBooleanGetterName(name) && getter == name {
				setter = "set" + name[2:]
			}
			for _, s := range lookup(setter, analysis.RoleRead) {
				if h := r.file(s.Def.Path); h.Lang == "java" && isSetter(h.Defs[s.Def.Index]) {
					out = append(out, s)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// getterNames lists the Java getters a Kotlin property name may stand
// for, each checked against javaPropertyName: `url` is getURL or getUrl,
// `isActive` is isActive (a boolean getter) or getIsActive.
func getterNames(name string) []string {
	if name == "" || name[0] < 'a' || name[0] > 'z' || len(name) > 64 {
		return nil
	}
	var out []string
	if isBooleanGetterName(name) {
		out = append(out, name)
	}
	for k := 1; k <= len(name); k++ {
		g := "get" + strings.ToUpper(name[:k]) + name[k:]
		if javaPropertyName(g) == name && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// isBooleanGetterName reports whether name has the shape of a Java boolean
// getter, which Kotlin keeps as the property name: isActive.
func isBooleanGetterName(name string) bool {
	return len(name) > 2 && strings.HasPrefix(name, "is") && isUpper(name[2])
}

// javaPropertyName is the Kotlin property name of a Java accessor, or ""
// when the method is not named like one: getName → name, getURL → url,
// getURLString → urlString, isActive → isActive, setName → name.
func javaPropertyName(method string) string {
	if isBooleanGetterName(method) {
		return method
	}
	var rest string
	switch {
	case strings.HasPrefix(method, "get"):
		rest = method[3:]
	case strings.HasPrefix(method, "set"):
		rest = method[3:]
	default:
		return ""
	}
	if rest == "" || !isUpper(rest[0]) {
		return ""
	}
	// An uppercase run is lowercased whole, but for the letter that starts
	// the next word: URLString → urlString.
	n := 0
	for n < len(rest) && isUpper(rest[n]) {
		n++
	}
	if n > 1 && n < len(rest) {
		n--
	}
	return strings.ToLower(rest[:n]) + rest[n:]
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }

// isGetter reports whether a Java method can be read as a Kotlin property:
// an instance method with no parameters that returns something, `is…`
// getters returning boolean.
func isGetter(d analysis.Def) bool {
	if d.Kind != analysis.KindMethod || hasModifier(d.Signature, "static") || d.TypeName == "void" {
		return false
	}
	if params, ok := signatureParams(d); !ok || len(params) != 0 {
		return false
	}
	return !isBooleanGetterName(d.Name) || d.TypeName == "boolean"
}

// isSetter reports whether a Java method can be assigned as a Kotlin
// property: an instance method with one parameter.
func isSetter(d analysis.Def) bool {
	if d.Kind != analysis.KindMethod || hasModifier(d.Signature, "static") {
		return false
	}
	params, ok := signatureParams(d)
	return ok && len(params) == 1
}

// otherJVMNames lists the names other than its own a definition is
// referenced by from the other JVM language: a Java accessor's Kotlin
// property name, a Kotlin property's Java getter and setter.
func (r *Resolver) otherJVMNames(def DefID) []string {
	f := r.file(def.Path)
	d := f.Defs[def.Index]
	var out []string
	if f.Lang == "java" && (isGetter(d) || isSetter(d)) {
		if p := javaPropertyName(d.Name); p != "" && p != d.Name {
			out = append(out, p)
		}
		if strings.HasPrefix(d.Name, "set") && isBooleanGetterName("is"+d.Name[3:]) {
			out = append(out, "is"+d.Name[3:])
		}
	}
	if f.Lang == "kotlin" && (d.Kind == analysis.KindProperty || d.Kind == analysis.KindConstant) && !DeclaredInBody(f, def.Index) {
		for _, n := range []string{kotlinGetter(d.Name), kotlinSetter(d.Name)} {
			if n != d.Name {
				out = append(out, n)
			}
		}
	}
	return out
}

// UseNames lists the names a reference to def may be written with: its
// own and, from the other JVM language, its accessors' or property's.
func (r *Resolver) UseNames(def DefID) []string {
	f := r.file(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return nil
	}
	return append([]string{f.Defs[def.Index].Name}, r.otherJVMNames(def)...)
}

// namedBy reports whether a reference written name in a file of language
// lang may be a use of def, whose own name is defName.
func (r *Resolver) namedBy(def DefID, defName, lang, name string) bool {
	if name == defName {
		return true
	}
	g := r.file(def.Path)
	return g != nil && g.Lang != lang && sameFamily(g.Lang, lang) && slices.Contains(r.otherJVMNames(def), name)
}

// declaredIn reports whether the workspace declares name in lang at all.
func (r *Resolver) declaredIn(lang, name string) bool {
	return slices.ContainsFunc(r.defs(name), func(e DefEntry) bool { return e.Lang == lang })
}
