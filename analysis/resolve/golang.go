package resolve

import (
	"cmp"
	"path"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Go-specific resolution rules: the universe scope, imported package names
// and expression types (build constraints are in goplatform.go).

// confUniverse is the confidence of a predeclared Go identifier that nothing
// in the file, its package or its imports declares.
const confUniverse = 0.9

// predeclared are the identifiers of Go's universe scope.
// GoPredeclared reports whether name is one of Go's predeclared
// identifiers (the universe block: int, len, nil…).
func GoPredeclared(name string) bool { return predeclared[name] }

var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"true": true, "false": true, "iota": true, "nil": true,
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// universe resolves a predeclared identifier to its documentation in the
// standard library's builtin package (GOROOT/src/builtin), when the
// workspace holds it.
func (r *Resolver) universe(ref analysis.Ref) []Candidate {
	if !predeclared[ref.Name] {
		return nil
	}
	var out []Candidate
	for _, p := range r.ws.FilesInPackage("go", "builtin") {
		if path.Base(path.Dir(p)) != "builtin" {
			continue
		}
		g := r.file(p)
		if g == nil {
			continue
		}
		for _, i := range r.named(g, ref.Name) {
			if d := g.Defs[i]; d.Container == analysis.None && d.Receiver == "" {
				out = r.add(out, p, i, confUniverse, ViaImport, ref.Role)
			}
		}
	}
	return out
}

// goImportsPackage reports whether a Go file imports a package under the
// name: its alias, or the last element of its path (a guess at the package
// name that holds for nearly every package; "math/rand/v2" is rand).
func goImportsPackage(f *analysis.FileFacts, name string) bool {
	for _, imp := range f.Imports {
		if !imp.Wildcard && goImportName(imp) == name {
			return true
		}
	}
	return false
}

// GoImportName is the package name a Go import declares in its file: its
// alias, else the last element of its path that is not a major version.
func GoImportName(imp analysis.Import) string { return goImportName(imp) }

// goImportName is the name a Go import declares in its file.
func goImportName(imp analysis.Import) string {
	if imp.Alias != "" {
		return imp.Alias
	}
	base := imp.Name
	if isMajorVersion(base) {
		if dir := path.Dir(imp.Path); dir != "." {
			base = path.Base(dir)
		}
	}
	// gopkg.in/yaml.v3 is yaml, github.com/x/go-foo is foo by convention.
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return cmp.Or(strings.TrimPrefix(base, "go-"), base)
}

// isMajorVersion reports whether an import path element is a module's major
// version suffix such as v2.
func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// goExprTypes infers the types of a Go qualifier that is an expression
// rather than a dotted name: a call `f(x)`, `pkg.F(x)` or `a.b().c(y)` (the
// declared first result of what is called, or the type converted to), an
// index `a.b[i]` (the element type of the slice, array or map), a type
// assertion `x.(*T)` or a composite literal `T{...}`, `&T{...}`.
func (r *Resolver) goExprTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "(") && strings.HasSuffix(q, ")") && matching(q, len(q)-1) == 0 {
		return r.goExprTypes(f, ref, q[1:len(q)-1], depth+1)
	}
	if name := strings.TrimLeft(q, "*&"); name != q && isName(name) {
		// (*T).Method, a method expression, and (*p).field.
		qref := ref
		qref.Qualifier = name
		return r.receiverTypes(f, qref, depth+1)
	}
	if name, ok := strings.CutSuffix(strings.TrimPrefix(q, "&"), "{}"); ok && isName(strings.SplitN(name, "[", 2)[0]) {
		// T{} as extraction qualifies the keys of a literal: a Go type
		// name need not start with an upper-case letter.
		return r.typesNamed(f, name, ref.Scope, ref.Span, depth)
	}
	if strings.HasSuffix(q, "}") {
		if name := constructedName(q); name != "" {
			return r.typesNamed(f, name, ref.Scope, ref.Span, depth)
		}
		return nil
	}
	var out []Candidate
	for _, t := range r.goExprTypeNames(f, ref, q, depth) {
		if analysis.GoStructLiteral(t.typeName) {
			// An anonymous struct's fields are declared inside the variable
			// or field declared with it.
			if t.owner.Path != "" {
				conf := 1.0
				if t.conf < r.threshold {
					conf = t.conf
				}
				out = append(out, r.candidate(t.owner, conf, ViaScope))
			}
			continue
		}
		for _, c := range r.typesNamed(t.file, t.typeName, t.scope, t.at, depth+1) {
			if c.Confidence < r.threshold {
				// A type only guessed at (a type parameter T named in a
				// result) has hundreds of guesses, whose members would
				// all be guesses too.
				continue
			}
			// As with supertypes, a chain of confidently resolved steps
			// (`a.B().C[i].D()`) is as sure as a short one: only a guess
			// along the way costs confidence.
			if t.conf < r.threshold {
				c.Confidence *= t.conf
			}
			out = append(out, c)
		}
	}
	return out
}

// writtenType is a type as written somewhere: where to resolve it from.
type writtenType struct {
	file     *analysis.FileFacts
	typeName string
	scope    int32
	at       analysis.Span
	conf     float64
	// owner is the variable or field the type is declared for, when
	// known: it declares the fields of an anonymous struct type.
	owner DefID
}

// goExprTypeNames infers the written types of a Go expression: calls,
// indexes and type assertions of dotted names, nested. A sub-expression is
// shorter text, so descending into one costs no depth: a chain of calls
// `a.B().C().D()` costs none, only jumps to a variable's value do.
func (r *Resolver) goExprTypeNames(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) []writtenType {
	// Dereferencing or taking the address keeps the base type, which is
	// all a selector needs.
	q = strings.TrimLeft(q, "*&")
	if depth > maxDepth || q == "" {
		return nil
	}
	if strings.HasPrefix(q, "(") && matching(q, len(q)-1) == 0 {
		return r.goExprTypeNames(f, ref, q[1:len(q)-1], depth+1)
	}
	result := 0
	if i := strings.LastIndexByte(q, '#'); i > 0 && q[i-1] == ')' {
		// "f()#1": the second result of f, as extraction values the
		// second name of `a, b := f()`.
		n, err := strconv.Atoi(q[i+1:])
		if err != nil {
			return nil
		}
		q, result = q[:i], n
	}
	switch last := q[len(q)-1]; last {
	case ')', ']':
		open := matching(q, len(q)-1)
		if open <= 0 {
			return nil
		}
		base := q[:open]
		if last == ')' && strings.HasSuffix(base, ".") {
			// x.(T) asserts the type T.
			return []writtenType{{file: f, typeName: q[open+1 : len(q)-1], scope: ref.Scope, at: ref.Span, conf: 1}}
		}
		var out []writtenType
		if last == ']' {
			for _, t := range r.goExprTypeNames(f, ref, base, depth) {
				if elemType(t.typeName) == "" {
					t = r.goDefinedAs(t, depth) // s[i] of `type byName []*cobra.Command`
				}
				if elem := elemType(t.typeName); elem != "" {
					t.typeName = elem
					out = append(out, t)
				}
			}
			return out
		}
		if strings.HasSuffix(base, "]") {
			return nil // a generic function's result depends on its type arguments
		}
		if base == "new" {
			// new(T) is a *T, whose members are T's.
			return []writtenType{{file: f, typeName: q[open+1 : len(q)-1], scope: ref.Scope, at: ref.Span, conf: 1}}
		}
		return r.goCallResults(f, ref, base, result, depth)
	}
	if _, name := splitSelector(q); isName(name) && !strings.Contains(name, ".") {
		// A name, or a selector of an expression: `a.b`, `f().c`, `m[k].d`.
		return r.goValueTypeNames(f, ref, q, analysis.RoleRead, depth)
	}
	return nil
}

// goDefinedAs is the type a defined type is written as (`type byName
// []*cobra.Command`), read where it is declared; t itself when it names no
// such type.
func (r *Resolver) goDefinedAs(t writtenType, depth int) writtenType {
	for _, c := range r.typesNamed(t.file, strings.TrimLeft(t.typeName, "*"), t.scope, t.at, depth+1) {
		if g, d, ok := r.entry(c.Def); ok && d.Kind == analysis.KindTypeAlias && d.TypeName != "" {
			return writtenType{g, d.TypeName, d.Scope, d.NameSpan, min(t.conf, c.Confidence), DefID{}}
		}
	}
	return t
}

// goValueTypeNames resolves expr, a name or a selector whose operand is an
// expression, and returns the declared types of the values it denotes.
func (r *Resolver) goValueTypeNames(f *analysis.FileFacts, ref analysis.Ref, expr string, role analysis.Role, depth int) []writtenType {
	var out []writtenType
	for _, c := range r.goOperand(f, ref, expr, role, depth) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		if d.Kind.IsType() || d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod {
			continue
		}
		switch {
		case d.TypeName != "":
			out = append(out, writtenType{g, d.TypeName, d.Scope, d.NameSpan, c.Confidence, c.Def})
		case d.Value != "":
			for _, t := range r.goExprTypeNames(g, valueRef(d), d.Value, depth+1) {
				t.conf = min(t.conf, c.Confidence)
				out = append(out, t)
			}
		}
	}
	return out
}

// goCallResults is the type of the given result (0 for the first) of
// calling callee, or the type a conversion T(x) converts to.
func (r *Resolver) goCallResults(f *analysis.FileFacts, ref analysis.Ref, callee string, result, depth int) []writtenType {
	var out []writtenType
	for _, c := range r.goOperand(f, ref, callee, analysis.RoleCall, depth) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		switch {
		case d.Kind.IsType() && result == 0:
			out = append(out, writtenType{g, d.Name, d.Scope, d.NameSpan, c.Confidence, DefID{}})
		case d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod:
			if res := nthResult(d.TypeName, result); res != "" {
				out = append(out, writtenType{g, res, d.Scope, d.NameSpan, c.Confidence, DefID{}})
			}
		case strings.HasPrefix(d.TypeName, "func("):
			// A variable, parameter or field of function type: its
			// results follow the parameter list.
			if end := MatchingForward(d.TypeName, len("func")); end > 0 {
				if res := nthResult(d.TypeName[end+1:], result); res != "" {
					out = append(out, writtenType{g, res, d.Scope, d.NameSpan, c.Confidence, DefID{}})
				}
			}
		}
	}
	return out
}

// goOperand resolves a name or selector expression `a.b(x).c` with the
// role it is used in, keeping the confident best candidates.
func (r *Resolver) goOperand(f *analysis.FileFacts, ref analysis.Ref, expr string, role analysis.Role, depth int) []Candidate {
	qualifier, name := splitSelector(expr)
	if !isName(name) || strings.Contains(name, ".") {
		return nil
	}
	oref := ref
	oref.Role, oref.Qualifier, oref.Name = role, qualifier, name
	var out []Candidate
	// The operand is shorter text than the expression (see goExprTypeNames).
	for _, c := range best(r.resolve(f, oref, depth)) {
		if c.Confidence >= r.threshold {
			out = append(out, c)
		}
	}
	return out
}

// splitSelector splits `a.b(x).c` at its last dot outside brackets:
// ("a.b(x)", "c").
func splitSelector(expr string) (qualifier, name string) {
	depth := 0
	for i := len(expr) - 1; i >= 0; i-- {
		switch expr[i] {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
		case '.':
			if depth == 0 {
				return expr[:i], expr[i+1:]
			}
		}
	}
	return "", expr
}

// matching is the index of the bracket opening the one closing at end, or
// -1 when they do not balance.
func matching(s string, end int) int {
	depth := 0
	for i := end; i >= 0; i-- {
		switch s[i] {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			if depth--; depth == 0 {
				return i
			}
		case '"', '`':
			// Skip the literal: brackets inside it do not count.
			j := strings.LastIndexByte(s[:i], s[i])
			if j < 0 {
				return -1
			}
			i = j
		case '\'':
			return -1
		}
	}
	return -1
}

// elemType is the element type of a written slice, array, pointer to
// array or map type: "T" for "[]T", "[4]T", "*[4]T" and "map[K]T".
func elemType(t string) string {
	t = strings.TrimSpace(strings.TrimPrefix(t, "*"))
	if rest, ok := strings.CutPrefix(t, "map"); ok && strings.HasPrefix(rest, "[") {
		t = rest
	} else if !strings.HasPrefix(t, "[") {
		return ""
	}
	if end := MatchingForward(t, 0); end > 0 {
		return strings.TrimSpace(t[end+1:])
	}
	return ""
}

// MatchingForward is the index of the bracket closing the one opening at
// start, or -1.
func MatchingForward(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// nthResult is the n-th (from 0) result type of a written Go result list:
// "T" for the first of "T", "(T, error)" or "(v T, err error)", "*P" for the
// second of "(a, b *P)"; "" when there is none.
func nthResult(results string, n int) string {
	results = strings.TrimSpace(results)
	if !strings.HasPrefix(results, "(") {
		if n == 0 {
			return results
		}
		return ""
	}
	end := MatchingForward(results, 0)
	if end < 0 {
		return ""
	}
	elems := splitTopLevel(results[1:end])
	if n >= len(elems) {
		return ""
	}
	named := false
	for _, e := range elems {
		if _, ok := namedType(e); ok {
			named = true
			break
		}
	}
	if !named {
		return elems[n]
	}
	// Named results: "a, b int" types a by the next element with a type.
	for _, e := range elems[n:] {
		if t, ok := namedType(e); ok {
			return t
		}
	}
	return ""
}

// namedType is the type of a named parameter or result "name T".
func namedType(e string) (string, bool) {
	name, typ, ok := strings.Cut(e, " ")
	if !ok || !isName(name) || strings.Contains(name, ".") {
		return "", false
	}
	switch name {
	case "func", "chan", "map", "struct", "interface":
		return "", false
	}
	return strings.TrimSpace(typ), true
}

// splitTopLevel splits a list at its commas outside brackets, trimming the
// elements.
func splitTopLevel(list string) []string {
	out := SplitTopLevel(list)
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// SplitTopLevel splits a list at its commas outside brackets, each element
// as written (so that offsets can be counted along it); none for a blank
// list.
func SplitTopLevel(list string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, list[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(list[start:]) != "" || len(out) > 0 {
		out = append(out, list[start:])
	}
	return out
}

// PackageImport returns the import that declares the package name at offset
// of a Go file: `fmt` in `fmt.Println` names the file's import of "fmt".
// A local declaration of the same name shadows the import.
func (r *Resolver) PackageImport(file string, offset int) (analysis.Import, bool) {
	f := r.file(file)
	if f == nil || f.Lang != "go" {
		return analysis.Import{}, false
	}
	i := refAt(f, offset)
	if i == analysis.None {
		return analysis.Import{}, false
	}
	ref := f.Refs[i]
	if ref.Qualifier != "" || ref.Role&analysis.RoleImport != 0 || len(r.unqualified(f, ref, 0)) > 0 {
		return analysis.Import{}, false
	}
	for _, imp := range f.Imports {
		if !imp.Wildcard && goImportName(imp) == ref.Name {
			return imp, true
		}
	}
	return analysis.Import{}, false
}

// IsPredeclared reports whether def is one of Go's predeclared identifiers
// as the standard library's builtin package documents them (string, int,
// len, nil): what the universe scope resolves to.
func IsPredeclared(ws Workspace, def DefID) bool {
	if path.Base(path.Dir(def.Path)) != "builtin" || !strings.HasSuffix(def.Path, ".go") {
		return false
	}
	f := ws.File(def.Path)
	if f == nil || f.Lang != "go" || f.Package != "builtin" || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return false
	}
	d := f.Defs[def.Index]
	return predeclared[d.Name] && d.Container == analysis.None && d.Receiver == ""
}

// anonStruct prefixes the qualifier extraction gives the keys of a literal
// of an anonymous struct type: "struct@<offset>{}", the offset of the
// struct type whose scope declares the fields.
const anonStruct = "struct@"

// anonFields resolves a key of a literal of an anonymous struct type to the
// field declared in the struct type's scope.
func (r *Resolver) anonFields(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	at, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(ref.Qualifier, anonStruct), "{}"))
	if err != nil {
		return nil
	}
	var out []Candidate
	for _, i := range r.named(f, ref.Name) {
		d := f.Defs[i]
		if d.Kind == analysis.KindField && d.Scope >= 0 && int(d.Scope) < len(f.Scopes) && f.Scopes[d.Scope].Span.Start == at {
			out = r.add(out, f.Path, i, confMember, ViaMember, ref.Role)
		}
	}
	return out
}
