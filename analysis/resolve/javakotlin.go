package resolve

import (
	"path"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// How Java sees Kotlin: a property through its getter and setter, a
// companion or object member as static only with @JvmStatic (a function)
// or const / @JvmField (a property), an object's instance as INSTANCE, and
// a file's top-level declarations as static members of its facade class.

// javaView finds `q.name` written in Java among the members of the type t
// that lookup finds by name, as Java sees Kotlin's.
func (r *Resolver) javaView(t DefID, q string, lookup func(name string, role analysis.Role) []Candidate, ref analysis.Ref, conf float64) []Candidate {
	name, role := ref.Name, ref.Role
	g := r.file(t.Path)
	if g.Lang == "kotlin" && name == "INSTANCE" && g.Defs[t.Index].Kind == analysis.KindObject && !isCompanion(g, t.Index) {
		return []Candidate{r.candidate(t, conf, ViaMember)}
	}
	// A Kotlin object's members are reached through INSTANCE; through the
	// object's own name only when static.
	static := g.Lang == "kotlin" && g.Defs[t.Index].Kind == analysis.KindObject && !isCompanion(g, t.Index) && lastSegment(q) != "INSTANCE"
	var out []Candidate
	for _, c := range lookup(name, role) {
		if r.javaSees(t, c.Def, static, role, name) && r.javaArgsFit(c.Def, ref.Args, false) {
			out = append(out, c)
		}
	}
	if len(out) > 0 || role&analysis.RoleCall == 0 {
		return out
	}
	for _, p := range kotlinPropertyNames(name) {
		if !r.declaredIn("kotlin", p) {
			continue
		}
		for _, c := range lookup(p, analysis.RoleRead) {
			if r.javaSees(t, c.Def, static, role, name) {
				out = append(out, c)
			}
		}
	}
	return out
}

// javaSees reports whether Java code reaching the member m through the
// type t may name it as name with role: static says whether t was named
// as a class, not through an instance.
func (r *Resolver) javaSees(t, m DefID, static bool, role analysis.Role, name string) bool {
	h := r.file(m.Path)
	if h.Lang != "kotlin" {
		return true
	}
	d := h.Defs[m.Index]
	if d.Visibility == "private" {
		return false
	}
	if d.Container != analysis.None && isCompanion(h, d.Container) && (t.Path != m.Path || t.Index != d.Container) {
		static = true // a companion member reached through its class
	}
	return javaNames(d, static, role, name)
}

// javaNames reports whether Java names the Kotlin declaration d as name
// with role, statically or through an instance.
func javaNames(d analysis.Def, static bool, role analysis.Role, name string) bool {
	if role&analysis.RoleImport != 0 {
		// A static import names a method or a field alike.
		return javaNames(d, static, analysis.RoleCall, name) || javaNames(d, static, analysis.RoleRead, name)
	}
	call := role&analysis.RoleCall != 0
	switch d.Kind {
	case analysis.KindFunction, analysis.KindMethod:
		return call && d.Name == name && (!static || hasModifier(d.Signature, "@JvmStatic"))
	case analysis.KindProperty, analysis.KindConstant:
		field := hasModifier(d.Signature, "const") || hasModifier(d.Signature, "@JvmField") || hasModifier(d.Signature, "lateinit")
		if !call {
			return field && d.Name == name
		}
		if field && !hasModifier(d.Signature, "lateinit") || static && !hasModifier(d.Signature, "@JvmStatic") {
			return false
		}
		return name == kotlinGetter(d.Name) || isVar(d) && name == kotlinSetter(d.Name)
	}
	return !call || d.Kind.IsType()
}

// kotlinGetter is the name Java calls a Kotlin property's getter by:
// name → getName, isOpen → isOpen.
func kotlinGetter(property string) string {
	if isBooleanGetterName(property) {
		return property
	}
	return "get" + upperFirst(property)
}

// kotlinSetter is the name of a Kotlin property's setter: name → setName,
// isOpen → setOpen.
func kotlinSetter(property string) string {
	if isBooleanGetterName(property) {
		return "set" + property[2:]
	}
	return "set" + upperFirst(property)
}

// kotlinPropertyNames lists the Kotlin properties a Java accessor call may
// stand for, each checked by javaNames: getName is name (or Name),
// setOpen is open or isOpen.
func kotlinPropertyNames(method string) []string {
	if isBooleanGetterName(method) {
		return []string{method}
	}
	rest, ok := strings.CutPrefix(method, "get")
	if !ok {
		rest, ok = strings.CutPrefix(method, "set")
	}
	if !ok || rest == "" || !isUpper(rest[0]) {
		return nil
	}
	return []string{strings.ToLower(rest[:1]) + rest[1:], rest, "is" + rest}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func isVar(d analysis.Def) bool {
	return hasModifier(d.Signature, "var") || strings.HasPrefix(d.Signature, "var ") || strings.Contains(d.Signature, " var ")
}

func lastSegment(q string) string { return q[strings.LastIndexByte(q, '.')+1:] }

// facadeMembers finds `Facade.name` written in Java among the top-level
// declarations of the Kotlin files compiled to the class Facade: Strings.kt
// to StringsKt, or a file naming its class with @file:JvmName. The facade's
// package is the one the Java file imports it from, or its own.
func (r *Resolver) facadeMembers(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	pkg, facade := splitQualifier(ref.Qualifier)
	if !isName(ref.Qualifier) || facade == "" {
		return nil
	}
	var pkgs []string
	if pkg != "" {
		pkgs = []string{pkg}
	} else {
		for _, imp := range f.Imports {
			if !imp.Wildcard && imp.Name == facade {
				pkgs = []string{importModule(imp)}
				break
			}
		}
		if pkgs == nil {
			pkgs = append(pkgs, f.Package)
			for _, imp := range f.Imports {
				if imp.Wildcard {
					pkgs = append(pkgs, imp.Path)
				}
			}
		}
	}
	names := append([]string{ref.Name}, kotlinPropertyNames(ref.Name)...)
	var out []Candidate
	for _, p := range pkgs {
		files := r.packageFiles("kotlin", p)
		if len(files) == 0 {
			continue // a Java-only package: no facade
		}
		for _, name := range names {
			for _, e := range r.defs(name) {
				if e.Nested || e.Lang != "kotlin" || !files[e.Path] {
					continue
				}
				g := r.file(e.Path)
				d := g.Defs[e.Index]
				// An extension function is a static method taking its
				// receiver first; an extension property is left out.
				extension := d.Receiver != "" && d.Kind != analysis.KindFunction
				if d.Container != analysis.None || extension || d.Visibility == "private" || !javaNames(d, false, ref.Role, ref.Name) {
					continue
				}
				if !r.javaArgsFit(e.DefID, ref.Args, d.Receiver != "") {
					continue
				}
				if conf := facadeFit(g, facade, r.facadeTaken(files, facade)); conf > 0 {
					out = r.add(out, e.Path, e.Index, conf, ViaImport, ref.Role)
				}
			}
		}
	}
	return out
}

// facadeFit is how sure it is that the Kotlin file g compiles to the class
// facade: sure for the name its file name gives, less so for a file that
// names its class with @file:JvmName (the facts keep the annotation, not
// its argument).
func facadeFit(g *analysis.FileFacts, facade string, taken bool) float64 {
	if hasFileJvmName(g) {
		if taken || facade == defaultFacade(g.Path) {
			return 0
		}
		return confImport * 0.9
	}
	if facade == defaultFacade(g.Path) {
		return confImport
	}
	return 0
}

// facadeTaken reports whether a file of files without @file:JvmName
// compiles to the class facade, which no other file's JvmName may name.
func (r *Resolver) facadeTaken(files map[string]bool, facade string) bool {
	for p := range files {
		if defaultFacade(p) == facade {
			if g := r.file(p); g != nil && !hasFileJvmName(g) {
				return true
			}
		}
	}
	return false
}

// defaultFacade is the class a Kotlin file's top-level declarations
// compile to: strings.kt → StringsKt.
func defaultFacade(p string) string {
	return upperFirst(strings.TrimSuffix(path.Base(p), path.Ext(p))) + "Kt"
}

// hasFileJvmName reports whether the file is annotated @file:JvmName: a
// JvmName annotation before the file's imports and declarations, after
// the "@file:" that sets it apart from one on the first declaration.
func hasFileJvmName(g *analysis.FileFacts) bool {
	for _, ref := range g.Refs {
		if ref.Name != "JvmName" || ref.Enclosing != analysis.None || ref.Span.StartPoint.Col < len("@file:") {
			continue
		}
		first := true
		for _, imp := range g.Imports {
			first = first && ref.Span.Start < imp.Span.Start
		}
		for _, d := range g.Defs {
			first = first && ref.Span.Start < d.FullSpan.Start
		}
		if first {
			return true
		}
	}
	return false
}

// javaArgsFit reports whether Java may call the Kotlin function def with
// arguments of the shape args: Java passes every parameter (an extension's
// receiver first), default values only through @JvmOverloads.
func (r *Resolver) javaArgsFit(def DefID, args string, extension bool) bool {
	g := r.file(def.Path)
	d := g.Defs[def.Index]
	if g.Lang != "kotlin" || args == "" || !isCallable(d.Kind) || hasModifier(d.Signature, "@JvmOverloads") {
		return true
	}
	params, ok := signatureParams(d)
	if !ok {
		return true
	}
	n := len(params)
	if extension {
		n++
	}
	given := len(parseArgs(args))
	if len(params) > 0 && params[len(params)-1].variadic {
		return given >= n-1
	}
	return given == n
}
