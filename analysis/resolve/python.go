package resolve

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// withoutOverloads drops a Python function's @overload signatures when its
// implementation is among the candidates too: the implementation is what
// runs, and where pyright goes. A stub's overloads, with no implementation
// beside them, stay.
func (r *Resolver) withoutOverloads(c []Candidate) []Candidate {
	if len(c) < 2 {
		return c
	}
	overload := func(x Candidate) bool {
		ext := path.Ext(x.Def.Path)
		if ext != ".py" && ext != ".pyi" {
			return false
		}
		f := r.file(x.Def.Path)
		return f != nil && decoratedOverload(f, x.Def.Index)
	}
	if !slices.ContainsFunc(c, overload) {
		return c // the common case, spared a copy of thousands of guesses
	}
	drop := make([]bool, len(c))
	for i, x := range c {
		if !overload(x) {
			continue
		}
		d := r.file(x.Def.Path).Defs[x.Def.Index]
		for j, y := range c {
			if j == i || y.Def.Path != x.Def.Path || y.Confidence < x.Confidence {
				continue
			}
			e := r.file(y.Def.Path).Defs[y.Def.Index]
			if e.Name == d.Name && e.Container == d.Container && !overload(y) {
				drop[i] = true
				break
			}
		}
	}
	out := c[:0:0]
	for i, x := range c {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out
}

// decoratedOverload reports whether the definition is decorated with
// @overload (or @typing.overload, @t.overload): a call of that name lies between the
// end of the definition before it and its own start.
func decoratedOverload(f *analysis.FileFacts, index int32) bool {
	return decoratedWith(f, index, "overload")
}

// decoratedWith reports whether a function or method is decorated with
// name, under any qualifier.
func decoratedWith(f *analysis.FileFacts, index int32, name string) bool {
	d := f.Defs[index]
	if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
		return false
	}
	after := 0 // the end of the last definition before d that is not inside it
	for i, e := range f.Defs {
		if int32(i) != index && e.FullSpan.End <= d.FullSpan.Start && e.FullSpan.End > after {
			after = e.FullSpan.End
		}
	}
	for _, ref := range f.Refs {
		// Any qualifier: typing is often imported as t.
		if ref.Name == name && ref.Span.Start >= after && ref.Span.End <= d.FullSpan.Start {
			return true
		}
	}
	return false
}

// inPythonModule finds name among the top-level declarations of the module
// a dotted qualifier denotes (click.utils in click.utils.echo after
// `import click`).
func (r *Resolver) inPythonModule(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	head, rest, _ := strings.Cut(ref.Qualifier, ".")
	module := r.moduleBinding(f, head)
	if module == "" {
		return nil
	}
	if rest != "" {
		module += "." + rest
	}
	var out []Candidate
	for _, p := range r.moduleFiles(f.Path, module) {
		g := r.file(p)
		if g == nil {
			continue
		}
		for _, i := range r.named(g, ref.Name) {
			if g.Defs[i].Container == analysis.None {
				out = r.add(out, p, i, confImport, ViaImport, ref.Role)
			}
		}
		if len(out) > 0 {
			if later := r.laterImport(g, ref, out); len(later) > 0 {
				return later
			}
			return out
		}
	}
	// A package's __init__ that imports the name from a submodule
	// (`from .models import Request`) passes it on: requests.Request after
	// `import requests.adapters`.
	return r.reexported(f, ref.Name, module, ref.Role, confImport, 1)
}

// laterImport follows an import at the top level of module g that binds
// the name again after its declarations found: warnings.py defines warn
// in Python and then, at its end, imports the compiled _warnings.warn over
// it. The last binding is what the module's users get.
func (r *Resolver) laterImport(g *analysis.FileFacts, ref analysis.Ref, found []Candidate) []Candidate {
	last := 0
	for _, c := range found {
		if c.Def.Path != g.Path {
			return nil
		}
		last = max(last, g.Defs[c.Def.Index].NameSpan.End)
	}
	for _, imp := range g.Imports {
		if imp.Wildcard || imp.Span.Start < last || cmp.Or(imp.Alias, imp.Name) != ref.Name || imp.Path == imp.Name || !PythonTopLevel(g, imp.Span) {
			continue
		}
		if out := r.imported(g, imp.Name, importModule(imp), ref.Role, confImport); len(out) > 0 {
			return out
		}
	}
	return nil
}

// PythonTopLevel reports whether sp lies in no function or class of f.
func PythonTopLevel(f *analysis.FileFacts, sp analysis.Span) bool {
	for _, d := range f.Defs {
		switch d.Kind {
		case analysis.KindFunction, analysis.KindMethod, analysis.KindClass:
			if d.FullSpan.Start <= sp.Start && sp.End <= d.FullSpan.End {
				return false
			}
		}
	}
	return true
}

// builtins finds a Python name no scope or import declares among the
// interpreter's built-in names: the top level of a builtins.pyi (the stub
// kast writes from the interpreter, or typeshed's).
func (r *Resolver) builtins(ref analysis.Ref) []Candidate {
	if moduleAttributes[ref.Name] {
		return nil // the module's own: ModuleAt answers with its file
	}
	var out []Candidate
	for _, e := range r.defs(ref.Name) {
		if e.Nested || e.Lang != "python" || path.Base(e.Path) != "builtins.pyi" {
			continue
		}
		if g := r.file(e.Path); g != nil && g.Defs[e.Index].Container == analysis.None {
			out = r.add(out, e.Path, e.Index, confImport, ViaImport, ref.Role)
		}
	}
	return out
}

// withoutStubbedSources drops a Python candidate of a .py file when the
// same name is a candidate in the .pyi stub beside it: the stub is what
// the module declares to its users, as type checkers read it.
func withoutStubbedSources(c []Candidate) []Candidate {
	stubbed := map[[2]string]bool{}
	for _, x := range c {
		if strings.HasSuffix(x.Def.Path, ".pyi") {
			stubbed[[2]string{strings.TrimSuffix(x.Def.Path, "i"), x.Name}] = true
		}
	}
	if len(stubbed) == 0 {
		return c
	}
	return slices.DeleteFunc(c, func(x Candidate) bool { return stubbed[[2]string{x.Def.Path, x.Name}] })
}

// PythonBuiltin finds a name among the interpreter's built-in names
// (object, str): what every Python file sees without an import.
func (r *Resolver) PythonBuiltin(name string) []Candidate {
	return r.builtins(analysis.Ref{Name: name, Role: analysis.RoleType, Scope: analysis.None, Enclosing: analysis.None})
}

// pythonLiteralType is the built-in class of a literal qualifier: `"x"` and
// f-strings are str, b"x" bytes, [..] list, {..} dict, (..) a tuple, a
// number int or float; "" when q is no literal.
func pythonLiteralType(q string) string {
	if q == "" {
		return ""
	}
	prefix := strings.ToLower(q[:len(q)-len(strings.TrimLeft(q, "bBrRuUfF"))])
	body := q[len(prefix):]
	if body == "" {
		return ""
	}
	switch c, last := body[0], body[len(body)-1]; {
	case (c == '"' || c == '\'') && len(body) >= 2 && last == c:
		if strings.Contains(prefix, "b") {
			return "bytes"
		}
		return "str"
	case prefix != "":
		return ""
	case c == '[' && last == ']':
		return "list"
	case c == '{' && last == '}':
		return "dict"
	case c == '(' && last == ')' && strings.Contains(body, ","):
		return "tuple"
	case c >= '0' && c <= '9':
		switch {
		case strings.ContainsAny(body, "()[]"):
			return "" // 1).x: not a literal alone
		case strings.Contains(body, ".") || !strings.HasPrefix(strings.ToLower(body), "0x") && strings.ContainsAny(body, "eE"):
			return "float"
		}
		return "int"
	}
	return ""
}

// moduleAttributes are the names every module has of its own (__name__ is
// the module's name): pyright's target for them is the module itself.
var moduleAttributes = map[string]bool{"__name__": true, "__doc__": true, "__file__": true, "__package__": true,
	"__spec__": true, "__loader__": true, "__path__": true, "__builtins__": true, "__dict__": true}

// pythonBindsModule reports whether one of the file's imports binds name
// to a module: `import name`, `import name.sub`, `import mod as name`, or
// `from pkg import name` where pkg.name is a module's file (`from . import
// auth` in a function): a module, not a guess by name elsewhere.
func (r *Resolver) pythonBindsModule(f *analysis.FileFacts, name string) bool {
	for _, imp := range f.Imports {
		switch {
		case imp.Wildcard:
		case imp.Path == imp.Name && (imp.Alias == name || imp.Alias == "" && imp.Name == name):
			return true
		case imp.Alias == "" && strings.HasPrefix(imp.Path, name+"."):
			return true
		case cmp.Or(imp.Alias, imp.Name) == name && imp.Path != imp.Name && len(r.moduleFiles(f.Path, imp.Path)) > 0:
			return true
		}
	}
	return false
}

// pythonEarlierBinding replaces declarations found for a reference at a
// module's top level that all come after it in the file (`str = str`, or
// `X = None` in an except clause after `from m import X`) with the binding
// that reaches the reference when the module runs: the import, else the
// built-in name. Code in a function runs later and sees the module's
// final bindings, so this is for the top level only.
func (r *Resolver) pythonEarlierBinding(f *analysis.FileFacts, ref analysis.Ref, c []Candidate) []Candidate {
	if kept, ok := r.pythonSubmoduleImport(f, ref, c); ok {
		return kept
	}
	if ref.Scope != 0 || ref.Role&(analysis.RoleWrite|analysis.RoleImport) != 0 {
		return c
	}
	for _, x := range c {
		if x.Def.Path != f.Path || f.Defs[x.Def.Index].Container != analysis.None {
			return c
		}
		// Bound before the reference, unless by the statement the
		// reference is part of (`bytes = bytes`).
		if d := f.Defs[x.Def.Index]; d.NameSpan.Start < ref.Span.Start && !(d.Kind == analysis.KindVariable && d.FullSpan.Contains(ref.Span.Start)) {
			return c
		}
	}
	for _, imp := range f.Imports {
		if !imp.Wildcard && cmp.Or(imp.Alias, imp.Name) == ref.Name && imp.Span.End <= ref.Span.Start && imp.Path != imp.Name {
			if out := r.imported(f, imp.Name, importModule(imp), ref.Role, confImport); len(out) > 0 {
				return out
			}
		}
	}
	if out := r.builtins(ref); len(out) > 0 {
		return out
	}
	return c
}

// pythonObjectMember finds a __dunder__ member no class in t's hierarchy
// declares in object, which every Python class derives from.
func (r *Resolver) pythonObjectMember(t DefID, name string, role analysis.Role, conf float64) []Candidate {
	if len(name) < 5 || !strings.HasPrefix(name, "__") || !strings.HasSuffix(name, "__") {
		return nil
	}
	for _, o := range r.PythonBuiltin("object") {
		if o.Def != t && r.file(o.Def.Path).Defs[o.Def.Index].Kind == analysis.KindClass {
			return r.declared(o.Def, name, role, conf)
		}
	}
	return nil
}

// pythonUnionArms splits a Python annotation into the types a value of it
// may have: `str | bytes`, `Union[str, bytes]` and `Optional[str]` (any
// qualifier of typing), without None; Final[T], ClassVar[T] and
// Annotated[T, …] are T's arms. One arm is the annotation itself.
func pythonUnionArms(t string) []string {
	t = strings.TrimSpace(t)
	if inner, ok := strings.CutSuffix(t, "]"); ok {
		if open := strings.IndexByte(inner, '['); open > 0 {
			switch head := inner[:open]; head[strings.LastIndexByte(head, '.')+1:] {
			case "Optional", "Union":
				return pythonNestedArms(pythonArmsSplit(inner[open+1:], ','))
			case "Final", "ClassVar", "Annotated", "Required", "NotRequired", "ReadOnly":
				// Qualifiers of the type they wrap (Annotated's first
				// argument; the rest is metadata).
				if args := pythonArmsSplit(inner[open+1:], ','); len(args) > 0 {
					return pythonUnionArms(args[0])
				}
			}
		}
	}
	if arms := pythonArmsSplit(t, '|'); len(arms) != 1 || arms[0] != t {
		return pythonNestedArms(arms)
	}
	return []string{t}
}

// pythonNestedArms flattens the arms of arms that are unions themselves.
func pythonNestedArms(arms []string) []string {
	var out []string
	for _, a := range arms {
		out = append(out, pythonUnionArms(a)...)
	}
	return out
}

// pythonArmsSplit splits t at sep outside brackets, dropping None arms.
func pythonArmsSplit(t string, sep byte) []string {
	var arms []string
	depth, start := 0, 0
	for i := 0; i <= len(t); i++ {
		switch {
		case i < len(t) && strings.IndexByte("[(", t[i]) >= 0:
			depth++
		case i < len(t) && strings.IndexByte("])", t[i]) >= 0:
			depth--
		case i == len(t) || t[i] == sep && depth == 0:
			if arm := strings.TrimSpace(t[start:i]); arm != "" && arm != "None" {
				arms = append(arms, arm)
			}
			start = i + 1
		}
	}
	return arms
}

// pythonCallOfCall types `f(a)()`, a decorator factory's result applied
// (what `@f(a)` binds): what the Callable f is annotated to return returns
// (`-> Callable[[F], Group]` gives Group). ok is false for other chains.
func (r *Resolver) pythonCallOfCall(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) ([]Candidate, bool) {
	if f.Lang != "python" {
		return nil, false
	}
	outer, _ := calleeOf(q)
	if !strings.HasSuffix(outer, ")") {
		return nil, false
	}
	inner, ok := calleeOf(outer)
	if !ok || r.tooDeep(f.Lang, depth) {
		return nil, true
	}
	cref := ref
	cref.Role, cref.Args = analysis.RoleCall, ""
	cref.Qualifier, cref.Name = splitQualifier(inner)
	var out []Candidate
	for _, c := range best(r.resolve(f, cref, depth)) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
			continue
		}
		for _, arm := range pythonUnionArms(d.TypeName) {
			if res := callableResult(arm); res != "" {
				for _, t := range r.typesNamed(g, res, d.Scope, d.NameSpan, depth+1) {
					t.Confidence *= c.Confidence
					out = append(out, t)
				}
			}
		}
	}
	return out, true
}

// callableResult is R of an annotation `Callable[[A], R]` (any qualifier
// of typing or collections.abc), or "".
func callableResult(t string) string {
	inner, ok := strings.CutSuffix(strings.TrimSpace(t), "]")
	open := strings.IndexByte(inner, '[')
	if !ok || open <= 0 || baseTypeName(inner[:open]) != "Callable" {
		return ""
	}
	args := inner[open+1:]
	depth := 0
	for i := len(args) - 1; i >= 0; i-- {
		switch args[i] {
		case ']', ')':
			depth++
		case '[', '(':
			depth--
		case ',':
			if depth == 0 {
				return strings.TrimSpace(args[i+1:])
			}
		}
	}
	return ""
}

// enumBases are the classes of the enum module whose subclasses' class
// attributes are the enum's members.
var enumBases = map[string]bool{"Enum": true, "IntEnum": true, "StrEnum": true, "Flag": true, "IntFlag": true, "ReprEnum": true}

// pythonEnumMember reports whether d is a member of an enum: a variable
// assigned in the body of a class derived from one of enum's classes.
func (r *Resolver) pythonEnumMember(g *analysis.FileFacts, d analysis.Def, depth int) bool {
	if d.Container == analysis.None || d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod || d.Kind.IsType() ||
		strings.HasPrefix(d.Name, "_") || g.Defs[d.Container].Kind != analysis.KindClass {
		return false
	}
	return r.derivesFromEnum(DefID{g.Path, d.Container}, depth)
}

func (r *Resolver) derivesFromEnum(t DefID, depth int) bool {
	if depth > 6 || r.tooDeep("python", depth) {
		return false
	}
	for _, e := range r.supertypes(t, depth) {
		if enumBases[baseTypeName(e.Name)] {
			return true
		}
		for _, c := range best(e.Targets) {
			if r.derivesFromEnum(c.Def, depth+1) {
				return true
			}
		}
	}
	return false
}

// pythonTypeOnly marks an annotation's reference that pythonAnnotationValue
// resolves as a type; a bit of Role no extraction sets.
const pythonTypeOnly analysis.Role = 1 << 7

// pythonAnnotationValue resolves a name in a Python annotation that no
// type declares as the value it is: any expression may annotate, so
// typing's Callable (an instance) and TypeAlias (a decorated function)
// are what pyright goes to. ok is false when the reference is no
// annotation, or is one being resolved as a type.
func (r *Resolver) pythonAnnotationValue(f *analysis.FileFacts, ref analysis.Ref, depth int) ([]Candidate, bool) {
	if f.Lang != "python" || ref.Role&analysis.RoleType == 0 || ref.Role&pythonTypeOnly != 0 {
		return nil, false
	}
	typed := ref
	typed.Role |= pythonTypeOnly
	c := r.resolve(f, typed, depth)
	if r.pythonConfident(c) {
		return c, true
	}
	// A guess by name for the type (collections.abc's class Callable)
	// gives way to the value the import binds (typing's Callable).
	value := ref
	value.Role = ref.Role&^analysis.RoleType | analysis.RoleRead
	if v := r.resolve(f, value, depth); r.pythonConfident(v) || len(c) == 0 {
		return v, true
	}
	return c, true
}

// pythonConfident reports whether one of the candidates is confident.
func (r *Resolver) pythonConfident(c []Candidate) bool {
	return slices.ContainsFunc(c, func(x Candidate) bool { return x.Confidence >= r.threshold })
}

// pythonSubmoduleImport keeps, of the candidates found for a name that
// `from pkg import name` binds where pkg.name is a module's file (`from .
// import auth`), those the package itself declares, which the import gets
// first, and the file's own; the rest are guesses by name, and the module
// is what ModuleAt answers. ok is false when no such import binds the name.
func (r *Resolver) pythonSubmoduleImport(f *analysis.FileFacts, ref analysis.Ref, c []Candidate) ([]Candidate, bool) {
	for _, imp := range f.Imports {
		if imp.Wildcard || cmp.Or(imp.Alias, imp.Name) != ref.Name || !strings.HasSuffix(imp.Path, "."+imp.Name) {
			continue
		}
		parent := imp.Path[:len(imp.Path)-len(imp.Name)]
		if strings.Trim(parent, ".") != "" {
			parent = strings.TrimSuffix(parent, ".")
		}
		if len(r.moduleFiles(f.Path, imp.Path)) == 0 {
			continue
		}
		pkg := r.moduleFiles(f.Path, parent)
		return slices.DeleteFunc(slices.Clone(c), func(x Candidate) bool {
			return x.Def.Path != f.Path && !slices.Contains(pkg, x.Def.Path) // the file's own bindings stay
		}), true
	}
	return nil, false
}

// pythonAliased replaces a type found alone that is a `X: TypeAlias = …`
// by the types it stands for: a value annotated X has their members.
func (r *Resolver) pythonAliased(out []Candidate, depth int) []Candidate {
	if len(out) != 1 || out[0].Confidence < r.threshold {
		return out
	}
	g, d, ok := r.entry(out[0].Def)
	if !ok || g.Lang != "python" || d.Kind != analysis.KindTypeAlias || d.TypeName == "" || r.tooDeep(g.Lang, depth+1) {
		return out
	}
	aliased := r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1)
	if len(aliased) == 0 {
		return out
	}
	for i := range aliased {
		aliased[i].Confidence = min(aliased[i].Confidence, out[0].Confidence)
	}
	return aliased
}

// pythonDecoratedFunction reports whether d is a function whose name is
// bound to what a decorator factory's call returns (its Value), rather
// than to the function itself.
func pythonDecoratedFunction(d analysis.Def) bool {
	return (d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod) && d.Value != ""
}

// pythonOverriddenParamTypes types an unannotated parameter of a method by
// the annotation of the same-named parameter of the method it overrides,
// as pyright infers it (`def open_session(self, app, request)` in a
// SessionInterface subclass has request: Request).
func (r *Resolver) pythonOverriddenParamTypes(g *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	if d.Container == analysis.None || r.tooDeep(g.Lang, depth) {
		return nil
	}
	m := g.Defs[d.Container]
	if m.Kind != analysis.KindMethod || m.Container == analysis.None || g.Defs[m.Container].Kind != analysis.KindClass {
		return nil
	}
	for _, base := range r.inherited(DefID{g.Path, m.Container}, m.Name, analysis.RoleRead, 1, depth+1) {
		h, bm, ok := r.entry(base.Def)
		if !ok || h.Lang != "python" || bm.Kind != analysis.KindMethod {
			continue
		}
		for _, p := range h.Defs {
			if p.Container == base.Def.Index && p.Kind == analysis.KindParameter && p.Name == d.Name && p.TypeName != "" {
				return r.typesNamed(h, p.TypeName, p.Scope, p.NameSpan, depth+1)
			}
		}
	}
	return nil
}

// pythonAssignedProperty is, when the members found of class t are only
// attributes its methods assign (`self.status_code = 206`) and a base
// class declares the name as a @property, that property: a property is a
// data descriptor, so the assignment calls its setter and makes no
// attribute of the subclass, and pyright answers the base's property.
func (r *Resolver) pythonAssignedProperty(t DefID, found []Candidate, name string, role analysis.Role, conf float64, depth int) []Candidate {
	g := r.file(t.Path)
	if len(found) == 0 || g == nil || g.Lang != "python" {
		return nil
	}
	for _, c := range found {
		if c.Def.Path != t.Path || !selfAssigned(g, c.Def.Index) {
			return nil
		}
	}
	var out []Candidate
	for _, b := range r.inherited(t, name, role, conf, depth+1) { // the caller's conf: inheritance is paid once
		if h := r.file(b.Def.Path); h != nil && h.Lang == "python" && decoratedWith(h, b.Def.Index, "property") {
			out = append(out, b)
		}
	}
	return out
}

// selfAssigned reports whether the definition is an unannotated attribute
// that one of its class's methods assigns through self.
func selfAssigned(g *analysis.FileFacts, index int32) bool {
	d := g.Defs[index]
	if d.Kind != analysis.KindField || d.TypeName != "" || d.Container == analysis.None {
		return false
	}
	for _, m := range g.Defs {
		if m.Kind == analysis.KindMethod && m.Container == d.Container && m.FullSpan.Contains(d.NameSpan.Start) {
			return true
		}
	}
	return false
}
