package resolve

import (
	"fmt"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// RenamedUse is the text that replaces the use ref of def when def is
// renamed newName. A use from the other JVM language may be written with
// another name (Kotlin's `p.name` for Java's getName, Java's getName() for
// Kotlin's property name), which takes the new name in that language's
// form. When no text keeps the use bound to def (a getter renamed to a
// name that is not a getter's), why says so and text is "".
func (r *Resolver) RenamedUse(def DefID, ref RefID, newName string) (text, why string) {
	f, g := r.file(def.Path), r.file(ref.Path)
	if f != nil && g != nil && g.Lang == "kotlin" && int(ref.Index) < len(g.Refs) && operatorUse(g.Refs[ref.Index]) {
		use := g.Refs[ref.Index]
		return "", fmt.Sprintf("%s is called through an operator at %s:%d, which a new name would unbind",
			use.Name, ref.Path, use.Span.StartPoint.Line+1)
	}
	if f == nil || g == nil || int(ref.Index) >= len(g.Refs) || f.Lang == g.Lang || !sameFamily(f.Lang, g.Lang) {
		return newName, ""
	}
	d, use := f.Defs[def.Index], g.Refs[ref.Index]
	switch f.Lang {
	case "java":
		if use.Role&analysis.RoleCall != 0 && use.Name == d.Name {
			return newName, "" // Kotlin calls the method by its own name
		}
		return r.renamedProperty(def, d, use.Name, newName)
	case "kotlin":
		property := d.Kind == analysis.KindProperty || d.Kind == analysis.KindConstant
		switch call := use.Role&analysis.RoleCall != 0; {
		case property && call && use.Name == kotlinGetter(d.Name):
			return kotlinGetter(newName), "" // isOpen renamed open is getOpen()
		case property && call && use.Name == kotlinSetter(d.Name):
			return kotlinSetter(newName), ""
		case use.Name == d.Name:
			return newName, "" // a function, a const or @JvmField field
		}
	}
	return "", fmt.Sprintf("%s is used as %s from %s, a name kast cannot carry over", d.Name, use.Name, g.Lang)
}

// renamedProperty is the Kotlin property name a Java accessor d's use
// written useName becomes when d is renamed newName.
func (r *Resolver) renamedProperty(def DefID, d analysis.Def, useName, newName string) (string, string) {
	if strings.HasPrefix(d.Name, "set") {
		return "", fmt.Sprintf("Kotlin assigns %s as the property %s, which needs the setter and getter named alike; rename the property's getter and setter together in Java", d.Name, useName)
	}
	prop := javaPropertyName(newName)
	if prop == "" || strings.HasPrefix(newName, "set") || isBooleanGetterName(d.Name) != isBooleanGetterName(newName) {
		return "", fmt.Sprintf("Kotlin reads %s as the property %s; %s is not a getter name of the same kind, so those reads would have to become calls", d.Name, useName, newName)
	}
	// Kotlin's assignments through the setter need the getter's name.
	f := r.file(def.Path)
	rest := strings.TrimPrefix(d.Name, "get")
	if isBooleanGetterName(d.Name) {
		rest = d.Name[2:]
	}
	for _, i := range r.named(f, "set"+rest) {
		s := f.Defs[i]
		if s.Container != d.Container || !isSetter(s) {
			continue
		}
		for _, u := range r.References(DefID{def.Path, i}) {
			if h := r.file(u.Ref.Path); h.Lang == "kotlin" && h.Refs[u.Ref.Index].Name != s.Name {
				return "", fmt.Sprintf("Kotlin assigns the property %s through %s at %s:%d, which would lose its getter; rename getter and setter together", useName, s.Name, u.Ref.Path, u.Span.StartPoint.Line+1)
			}
		}
	}
	return prop, ""
}

// RenamedDecl is the new name of def when its use written useName in the
// other JVM language is renamed newUseName there: Kotlin's property `name`
// renamed fullName is Java's getFullName, Java's getName() renamed
// getFullName is Kotlin's property fullName. False when useName is not a
// name def is used by, or newUseName has no counterpart.
func (r *Resolver) RenamedDecl(def DefID, useName, newUseName string) (string, bool) {
	f := r.file(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return "", false
	}
	d := f.Defs[def.Index]
	if useName == d.Name {
		return newUseName, true
	}
	switch f.Lang {
	case "java":
		if !isGetter(d) || javaPropertyName(d.Name) != useName {
			return "", false // a setter's rename is refused anyway
		}
		if isBooleanGetterName(useName) {
			return newUseName, isBooleanGetterName(newUseName)
		}
		if newUseName == "" || newUseName[0] < 'a' || newUseName[0] > 'z' {
			return "", false
		}
		return "get" + upperFirst(newUseName), true
	case "kotlin":
		for _, n := range kotlinPropertyNames(newUseName) {
			if useName == kotlinGetter(d.Name) && kotlinGetter(n) == newUseName ||
				useName == kotlinSetter(d.Name) && kotlinSetter(n) == newUseName {
				if isBooleanGetterName(d.Name) == isBooleanGetterName(n) {
					return n, true
				}
			}
		}
	}
	return "", false
}

// operatorUse reports whether a reference is a function called through an
// operator (Kotlin's `x in c` calls contains): its span is the operator,
// not the name.
func operatorUse(ref analysis.Ref) bool {
	return ref.Span.End-ref.Span.Start != len(ref.Name)
}
