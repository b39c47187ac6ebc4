package resolve

import (
	"cmp"
	"path"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Go-specific resolution rules: the universe scope, imported package names
// and build constraints.

// confUniverse is the confidence of a predeclared Go identifier that nothing
// in the file, its package or its imports declares.
const confUniverse = 0.9

// predeclared are the identifiers of Go's universe scope.
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

// The platform Go files are resolved for when nothing says otherwise: the
// one gopls and the go command default to on most machines.
const (
	defaultGOOS   = "linux"
	defaultGOARCH = "amd64"
)

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true,
	"openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true,
	"arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true,
	"mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true,
	"riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true,
	"wasm": true,
}

// goFilePlatform is the GOOS and GOARCH a Go file's name restricts it to
// (name_GOOS_GOARCH.go, name_GOOS.go, name_GOARCH.go, with an optional
// _test), "" for either when the name does not restrict it.
func goFilePlatform(p string) (goos, goarch string) {
	name := strings.TrimSuffix(path.Base(p), ".go")
	name = strings.TrimSuffix(name, "_test")
	elems := strings.Split(name, "_")
	if len(elems) < 2 {
		return "", "" // "linux.go" is not restricted
	}
	last := elems[len(elems)-1]
	if len(elems) >= 3 && knownArch[last] && knownOS[elems[len(elems)-2]] {
		return elems[len(elems)-2], last
	}
	if knownOS[last] {
		return last, ""
	}
	if knownArch[last] {
		return "", last
	}
	return "", ""
}

// osMatches reports whether a file for GOOS want builds for GOOS goos:
// android builds linux files, illumos solaris ones and ios darwin ones.
func osMatches(want, goos string) bool {
	return want == "" || want == goos ||
		goos == "android" && want == "linux" || goos == "illumos" && want == "solaris" || goos == "ios" && want == "darwin"
}

// goBuildFit ranks a Go file by whether its name lets it build for the
// platform of the file a reference is in (the one that file's own name
// says, else linux/amd64): 1 when it does, 0 when it builds for another
// platform only. Files other than Go sources all rank 1.
func goBuildFit(from, candidate string) int {
	if !strings.HasSuffix(candidate, ".go") || from == candidate {
		return 1
	}
	goos, goarch := defaultGOOS, defaultGOARCH
	if strings.HasSuffix(from, ".go") {
		fos, farch := goFilePlatform(from)
		if fos != "" {
			goos = fos
			if fos != defaultGOOS && farch == "" {
				goarch = "" // a windows file builds for every windows architecture
			}
		}
		if farch != "" {
			goarch = farch
		}
	}
	cos, carch := goFilePlatform(candidate)
	if !osMatches(cos, goos) || carch != "" && goarch != "" && carch != goarch {
		return 0
	}
	return 1
}

// BuildsWith reports whether a file may be compiled with the file from: for
// Go files, whether candidate's name lets it build for the platform from's
// name says (linux/amd64 when it says none); any two other files do.
func BuildsWith(from, candidate string) bool { return goBuildFit(from, candidate) == 1 }

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
	if strings.HasSuffix(q, "}") {
		if name := constructedName(q); name != "" {
			return r.typesNamed(f, name, ref.Scope, ref.Span, depth)
		}
		return nil
	}
	var out []Candidate
	for _, t := range r.goExprTypeNames(f, ref, q, depth) {
		for _, c := range r.typesNamed(t.file, t.typeName, t.scope, t.at, depth+1) {
			c.Confidence *= t.conf
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
}

// goExprTypeNames infers the written types of a Go expression: calls,
// indexes and type assertions of dotted names, nested.
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
	switch last := q[len(q)-1]; last {
	case ')', ']':
		open := matching(q, len(q)-1)
		if open <= 0 {
			return nil
		}
		base := q[:open]
		if last == ')' && strings.HasSuffix(base, ".") {
			// x.(T) asserts the type T.
			return []writtenType{{f, q[open+1 : len(q)-1], ref.Scope, ref.Span, 1}}
		}
		var out []writtenType
		if last == ']' {
			for _, t := range r.goValueTypeNames(f, ref, base, analysis.RoleRead, depth+1) {
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
		return r.goCallResults(f, ref, base, depth+1)
	}
	if isName(q) {
		return r.goValueTypeNames(f, ref, q, analysis.RoleRead, depth+1)
	}
	return nil
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
			out = append(out, writtenType{g, d.TypeName, d.Scope, d.NameSpan, c.Confidence})
		case d.Value != "":
			for _, t := range r.goExprTypeNames(g, valueRef(d), d.Value, depth+1) {
				t.conf *= c.Confidence
				out = append(out, t)
			}
		}
	}
	return out
}

// goCallResults is the first result type of calling callee, or the type a
// conversion T(x) converts to.
func (r *Resolver) goCallResults(f *analysis.FileFacts, ref analysis.Ref, callee string, depth int) []writtenType {
	var out []writtenType
	for _, c := range r.goOperand(f, ref, callee, analysis.RoleCall, depth) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		switch {
		case d.Kind.IsType():
			out = append(out, writtenType{g, d.Name, d.Scope, d.NameSpan, c.Confidence})
		case d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod:
			if res := firstResult(d.TypeName); res != "" {
				out = append(out, writtenType{g, res, d.Scope, d.NameSpan, c.Confidence})
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
	for _, c := range best(r.resolve(f, oref, depth+1)) {
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
	if end := matchingForward(t, 0); end > 0 {
		return strings.TrimSpace(t[end+1:])
	}
	return ""
}

// matchingForward is the index of the bracket closing the one opening at
// start, or -1.
func matchingForward(s string, start int) int {
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

// firstResult is the first result type of a written Go result list:
// "T" for "T", "(T, error)" or "(n T, err error)"; "" when there is none.
func firstResult(results string) string {
	results = strings.TrimSpace(results)
	if !strings.HasPrefix(results, "(") {
		return results
	}
	end := matchingForward(results, 0)
	if end < 0 {
		return ""
	}
	inner := results[1:end]
	// The first element up to a top-level comma.
	depth, first := 0, inner
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				first = inner[:i]
				i = len(inner)
			}
		}
	}
	first = strings.TrimSpace(first)
	// Named results: "n int" (and "a, b int", whose first element is the
	// bare name a, typed by the last element sharing it).
	if name, typ, ok := strings.Cut(first, " "); ok && isName(name) && !strings.Contains(name, ".") && name != "func" && name != "chan" && name != "map" {
		return strings.TrimSpace(typ)
	}
	if isName(first) && !strings.Contains(first, ".") && strings.Contains(inner, " ") && len(first) > 0 && !isTypeLike(inner) {
		// "a, b int": every name shares the last element's type.
		fields := strings.Split(inner, ",")
		lastField := strings.TrimSpace(fields[len(fields)-1])
		if _, typ, ok := strings.Cut(lastField, " "); ok {
			return strings.TrimSpace(typ)
		}
	}
	return first
}

// isTypeLike reports whether a result list holds types only, with no names:
// none of its elements has a space outside brackets.
func isTypeLike(inner string) bool {
	depth := 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ' ':
			if depth == 0 && i > 0 && inner[i-1] != ',' {
				return false
			}
		}
	}
	return true
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
