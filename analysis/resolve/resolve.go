// Why one long file: the resolver's ranking (scope, members, package,
// imports, receiver types) is one ordered procedure; its steps are kept in
// the order they apply.

package resolve

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/kast-dev/kast/analysis"
)

// DefaultThreshold is the confidence below which a candidate is uncertain.
const DefaultThreshold = 0.5

// Confidence of each way a name can be found, before kind and proximity
// adjustments. A name only found by searching the whole workspace stays
// below DefaultThreshold.
const (
	confScope     = 1.0
	confMember    = 0.95
	confImport    = 0.9
	confPackage   = 0.85
	confInherited = 0.85
	confWildcard  = 0.75
	confWorkspace = 0.4
)

// Via says how a candidate was found.
type Via string

const (
	ViaScope     Via = "scope"     // a local, parameter or declaration in an enclosing scope
	ViaMember    Via = "member"    // a member of the receiver's type or an enclosing type
	ViaPackage   Via = "package"   // a top-level declaration of the same package
	ViaImport    Via = "import"    // named by an import
	ViaWorkspace Via = "workspace" // only the name matches
	ViaSelf      Via = "self"      // the offset is on the definition's own name
)

// Candidate is a definition a reference may resolve to.
type Candidate struct {
	Def        DefID
	Name       string
	Kind       analysis.Kind
	NameSpan   analysis.Span
	Confidence float64 // 0..1
	// Uncertain is set when Confidence is below the resolver's threshold:
	// the candidate is a guess and must not be presented as the answer.
	Uncertain bool
	Via       Via
}

// Resolver resolves references against a workspace. It is safe for
// concurrent use; it caches the files it reads, their name tables and its
// lookups, so make a new one after the workspace changes.
type Resolver struct {
	ws        Workspace
	threshold float64

	mu           sync.Mutex
	constraints  map[constraintKey]bool
	names        map[*analysis.FileFacts]map[string][]int32
	scoped       map[*analysis.FileFacts]map[scopedName][]int32
	goMethods    map[[2]string][]DefEntry // (name, directory) → Go methods
	inheritances map[*analysis.FileFacts]map[analysis.Span]int32
	defsNamed    map[string][]DefEntry
	files        fileCache
	methods      map[string][]method
	types        map[typeKey][]Candidate
	imports      map[importKey][]Candidate
	modules      map[moduleKey][]Candidate
	packages     map[[2]string]map[string]bool
	aliases      map[string]string
	chains       map[chainKey][]Candidate
	written      map[chainKey][]string
	supers       map[superKey][]TypeEdge
	superSets    map[string]superSet
	pyModules    map[string][]string   // see pythonModules
	importers    map[string][]importer // see importerDirs
	goMods       map[string]string     // see modulePath
	importDirs   map[string][]string   // see mayImport
	hinted       hintedMemo            // see hintedNamed
}

// typeKey is what a written type's resolution depends on.
type typeKey struct {
	path, typeName string
	scope          int32
	at             analysis.Span
	depth          int
}

// method is a definition declared outside its type, with its receiver's
// base type name.
type method struct {
	id       DefID
	receiver string
	// generic is set when the receiver is a type parameter of the
	// definition (Kotlin's `fun <T> T.also()`): any type has it.
	generic bool
}

// New returns a resolver over ws with DefaultThreshold.
func New(ws Workspace) *Resolver {
	return &Resolver{
		ws:           ws,
		threshold:    DefaultThreshold,
		constraints:  map[constraintKey]bool{},
		names:        map[*analysis.FileFacts]map[string][]int32{},
		scoped:       map[*analysis.FileFacts]map[scopedName][]int32{},
		goMethods:    map[[2]string][]DefEntry{},
		inheritances: map[*analysis.FileFacts]map[analysis.Span]int32{},
		defsNamed:    map[string][]DefEntry{},
		methods:      map[string][]method{},
		types:        map[typeKey][]Candidate{},
		imports:      map[importKey][]Candidate{},
		modules:      map[moduleKey][]Candidate{},
		packages:     map[[2]string]map[string]bool{},
		aliases:      map[string]string{},
		chains:       map[chainKey][]Candidate{},
		written:      map[chainKey][]string{},
		supers:       map[superKey][]TypeEdge{},
		superSets:    map[string]superSet{},
		importers:    map[string][]importer{},
		goMods:       map[string]string{},
		importDirs:   map[string][]string{},
	}
}

// methodsNamed lists the definitions called name declared outside their type
// (Go methods, Kotlin extensions, Rust impls), once per resolver: member
// lookups ask for them at every qualified reference.
func (r *Resolver) methodsNamed(name string) []method {
	r.mu.Lock()
	ms, ok := r.methods[name]
	r.mu.Unlock()
	if ok {
		return ms
	}
	for _, e := range r.defs(name) {
		// The name tables rule out most definitions of a common name (the
		// fields, locals and parameters called key or off) without
		// decoding their files.
		if !mayHaveReceiver(e) {
			continue
		}
		g, d, ok := r.entry(e.DefID)
		if ok && d.Receiver != "" {
			base := baseTypeName(d.Receiver)
			ms = append(ms, method{e.DefID, base, g.Lang == "kotlin" && declaresTypeParam(g, e.Index, base)})
		}
	}
	r.mu.Lock()
	r.methods[name] = ms
	r.mu.Unlock()
	return ms
}

// mayHaveReceiver reports whether a definition listed by a name table may be
// declared outside its type, with a receiver: a Go method, a Kotlin
// extension, a Rust impl's function.
func mayHaveReceiver(e DefEntry) bool {
	if e.Lang == "go" {
		// Only a Go method declaration has a receiver (interface methods
		// have none, but they are few).
		return e.Kind == analysis.KindMethod
	}
	switch e.Kind {
	case analysis.KindParameter, analysis.KindTypeParameter, analysis.KindLambda, analysis.KindPackage,
		analysis.KindModule, analysis.KindConstructor, analysis.KindEnumEntry:
		return false
	}
	return !e.Kind.IsType()
}

// defs returns the workspace's definitions called name, looked up once per
// resolver: resolving the references of a name asks for it at every one.
func (r *Resolver) defs(name string) []DefEntry {
	return memo(&r.mu, r.defsNamed, name, r.ws.DefsNamed)
}

// entry returns the file and definition a name table's entry names; false
// when the file cannot be read (a name table can list a file whose facts
// are not readable yet, or no longer) or holds no such definition.
func (r *Resolver) entry(id DefID) (*analysis.FileFacts, analysis.Def, bool) {
	g := r.file(id.Path)
	if g == nil || id.Index < 0 || int(id.Index) >= len(g.Defs) {
		return nil, analysis.Def{}, false
	}
	return g, g.Defs[id.Index], true
}

// memo returns m[key], computing it with fetch outside the lock the first
// time (two callers may both fetch; either answer is the same).
func memo[K comparable, V any](mu *sync.Mutex, m map[K]V, key K, fetch func(K) V) V {
	mu.Lock()
	v, ok := m[key]
	mu.Unlock()
	if ok {
		return v
	}
	v = fetch(key)
	mu.Lock()
	m[key] = v
	mu.Unlock()
	return v
}

// inheritanceRef returns the inheritance reference of f at span, or None.
func (r *Resolver) inheritanceRef(f *analysis.FileFacts, span analysis.Span) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	table, ok := r.inheritances[f]
	if !ok {
		table = map[analysis.Span]int32{}
		for i, ref := range f.Refs {
			if ref.Role&analysis.RoleInheritance != 0 {
				table[ref.Span] = int32(i)
			}
		}
		if r.tableFor(f) {
			r.inheritances[f] = table
		}
	}
	if i, ok := table[span]; ok {
		return i
	}
	return analysis.None
}

// named returns the indexes of f's definitions called name.
func (r *Resolver) named(f *analysis.FileFacts, name string) []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	table, ok := r.names[f]
	if !ok {
		table = map[string][]int32{}
		for i, d := range f.Defs {
			table[d.Name] = append(table[d.Name], int32(i))
		}
		if r.tableFor(f) {
			r.names[f] = table
		}
	}
	return table[name]
}

// scopedName is a name declared in one scope.
type scopedName struct {
	scope int32
	name  string
}

// namedIn returns the indexes of f's definitions called name declared in
// scope. Scope lookups run for every reference, and a generated file can
// declare thousands of parameters of one name, each in its own scope.
func (r *Resolver) namedIn(f *analysis.FileFacts, scope int32, name string) []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	table, ok := r.scoped[f]
	if !ok {
		table = make(map[scopedName][]int32, len(f.Defs))
		for i, d := range f.Defs {
			k := scopedName{d.Scope, d.Name}
			table[k] = append(table[k], int32(i))
		}
		if r.tableFor(f) {
			r.scoped[f] = table
		}
	}
	return table[scopedName{scope, name}]
}

// Resolve returns the candidates for a reference, best first.
func (r *Resolver) Resolve(id RefID) []Candidate {
	defer r.pin(id.Path)()
	f := r.file(id.Path)
	if f == nil || id.Index < 0 || int(id.Index) >= len(f.Refs) {
		return nil
	}
	ref := f.Refs[id.Index]
	if r.pythonUnreachable(f, ref.Span.Start) {
		return nil // what never runs binds nothing, as type checkers see it
	}
	return r.preferActual(r.bindOverloads(f, ref, r.javaConstructors(f, ref, r.finish(id.Path, r.resolve(f, ref, 0)))))
}

// DefinitionAt resolves the name at a byte offset of a file: the innermost
// reference there, or the definition whose name is there.
func (r *Resolver) DefinitionAt(file string, offset int) []Candidate {
	f := r.file(file)
	if f == nil {
		return nil
	}
	for i, d := range f.Defs {
		if d.NameSpan.Contains(offset) && d.NameSpan.End > d.NameSpan.Start {
			return []Candidate{r.candidate(DefID{file, int32(i)}, confScope, ViaSelf)}
		}
	}
	if ref := refAt(f, offset); ref != analysis.None {
		return r.Resolve(RefID{file, ref})
	}
	return nil
}

// refAt is the innermost reference covering offset.
func refAt(f *analysis.FileFacts, offset int) int32 {
	best := analysis.None
	for i, ref := range f.Refs {
		if !ref.Span.Contains(offset) {
			continue
		}
		if best == analysis.None || ref.Span.End-ref.Span.Start < f.Refs[best].Span.End-f.Refs[best].Span.Start {
			best = int32(i)
		}
	}
	return best
}

// maxDepth bounds recursion through qualifiers, variables' values and
// supertypes.
const maxDepth = 6

// maxDepthJVM is maxDepth for Kotlin, Java and TypeScript, whose members are often
// reached through a variable's value and then three or four supertypes
// (a test's command, its base classes, the interface an extension is on).
const maxDepthJVM = 9

// tooDeep reports whether recursion at depth has gone past the bound of
// the language of the file at path.
func (r *Resolver) tooDeep(lang string, depth int) bool {
	if overloadLangs[lang] || ecmaLang(lang) { // TypeScript's types go through aliases and utility types too
		return depth > maxDepthJVM
	}
	return depth > maxDepth
}

// resolve runs the stages in order of precedence and returns the first
// stage's candidates.
func (r *Resolver) resolve(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth) {
		return nil
	}
	if ref.Role&analysis.RoleImport != 0 {
		return r.imported(f, ref.Name, ref.Qualifier, ref.Role, confImport)
	}
	if c, ok := r.pythonAnnotationValue(f, ref, depth); ok {
		return c
	}
	if ref.Qualifier != "" {
		return r.qualified(f, ref, depth)
	}
	if c := r.unqualified(f, ref, depth); len(c) > 0 {
		if f.Lang == "python" {
			return r.pythonEarlierBinding(f, ref, c)
		}
		return c
	}
	if f.Lang == "go" {
		if goImportsPackage(f, ref.Name) {
			// The name is an imported package, declared by its import
			// spec: no definition in the workspace is what it means.
			return nil
		}
		if c := r.universe(ref); len(c) > 0 {
			return c
		}
	}
	if f.Lang == "typescript" || f.Lang == "javascript" {
		if c := r.globals(ref); len(c) > 0 {
			return c
		}
	}
	if f.Lang == "python" {
		if c := r.builtins(ref); len(c) > 0 || r.pythonBindsModule(f, ref.Name) || moduleAttributes[ref.Name] {
			return c // a module is no declaration: ModuleAt answers, or nothing does
		}
	}
	if c := r.defaultImported(f, ref); len(c) > 0 {
		return c
	}
	return r.byName(ref.Name, ref.Role, false)
}

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
	if c := r.inPackage(f, ref); len(c) > 0 {
		return c
	}
	return r.wildcardImports(f, ref)
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
			if hiddenFrom(d, s, ref, local) || f.Lang == "go" && d.Kind == analysis.KindMethod ||
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
		// A supertype's name is never one of the members it brings in.
		if owner == analysis.None || ref.Role&analysis.RoleInheritance != 0 {
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
	for _, e := range r.defs(ref.Name) {
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

// explicitImport follows the file's import that brings the name in by name
// or by alias.
func (r *Resolver) explicitImport(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Lang == "go" {
		// A Go import brings in a package, not a declaration of the
		// package its path is under: "runtime/debug" names no debug of
		// runtime.
		return nil
	}
	for _, imp := range f.Imports {
		local := cmp.Or(imp.Alias, imp.Name)
		if f.Lang == "python" && imp.Path == imp.Name {
			continue // `import x (as y)` binds a module, not a declaration named x
		}
		if !imp.Wildcard && local == ref.Name {
			return r.imported(f, imp.Name, importModule(imp), ref.Role, confImport)
		}
	}
	return nil
}

// wildcardImports looks for the name in the packages the file imports whole.
func (r *Resolver) wildcardImports(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	var out []Candidate
	for _, imp := range f.Imports {
		if imp.Wildcard {
			out = append(out, r.imported(f, ref.Name, imp.Path, ref.Role, confWildcard)...)
		}
	}
	return out
}

// importModule is the package or module an import takes its name from:
// the path without its last segment.
func importModule(imp analysis.Import) string {
	return strings.TrimRight(strings.TrimSuffix(imp.Path, imp.Name), "./:")
}

// imported finds the top-level declaration name of an imported package or
// module: one declared in package pkg, or in a file whose path ends like the
// module path.
func (r *Resolver) imported(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64) []Candidate {
	// Every reference through an import asks again; the answer depends on
	// the file, not on where in it the reference is.
	key := importKey{f.Path, name, pkg, role, conf}
	r.mu.Lock()
	c, ok := r.imports[key]
	r.mu.Unlock()
	if !ok {
		c = r.importedFrom(f, name, pkg, role, conf, 0)
		r.mu.Lock()
		r.imports[key] = c
		r.mu.Unlock()
	}
	return slices.Clone(c)
}

// importKey is what the resolution of an imported name depends on.
type importKey struct {
	path, name, pkg string
	role            analysis.Role
	conf            float64
}

// importedFrom is imported after depth re-export hops.
func (r *Resolver) importedFrom(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth <= maxDepth {
		if out, _ := r.nodeImportedName(f, name, pkg, role, conf, depth); len(out) > 0 {
			return out
		}
		if out := r.ambientImported(f.Lang, name, pkg, role, conf); len(out) > 0 {
			return out
		}
		if out, ok := r.rustImported(f, name, pkg, role, conf, depth); ok && len(out) > 0 {
			return out
		}
	}
	out := r.topLevelIn(f.Lang, pkg, name, role, conf)
	if len(out) > 0 {
		return out
	}
	for _, id := range r.defs(name) {
		// The name table and path tests first: they spare decoding the
		// files of common names.
		if id.Nested || !sameFamily(id.Lang, f.Lang) || !moduleMatches(f.Path, id.Path, pkg) ||
			f.Lang == "python" && !r.pythonRooted(f.Path, id.Path, pkg) {
			continue
		}
		if g, d, ok := r.entry(id.DefID); ok && d.Container == analysis.None && sameFamily(g.Lang, f.Lang) {
			out = r.add(out, id.Path, id.Index, conf, ViaImport, role)
		}
	}
	if len(out) == 0 {
		out = r.typeMembers(f, name, pkg, role, conf, depth+1)
	}
	if len(out) == 0 {
		out = r.reexported(f, name, pkg, role, conf, depth+1)
	}
	return out
}

// typeMembers finds name among the members of the type that a path such as
// "com.acme.Format" names: Java's static imports and Kotlin's imports of
// object members.
func (r *Resolver) typeMembers(f *analysis.FileFacts, name, typePath string, role analysis.Role, conf float64, depth int) []Candidate {
	pkg, typeName := splitQualifier(typePath)
	if pkg == "" || !isName(typePath) {
		return nil
	}
	var out []Candidate
	for _, t := range r.topLevelIn(f.Lang, pkg, typeName, analysis.RoleType, conf) {
		out = append(out, r.members(t.Def, name, role, conf, depth+1)...)
	}
	if len(out) == 0 && overloadLangs[f.Lang] {
		out = r.nestedTypeMembers(f, name, pkg, typeName, role, conf, depth)
	}
	if len(out) == 0 && f.Lang == "java" {
		// A static import from a Kotlin file's facade class.
		out = r.facadeMembers(f, analysis.Ref{Name: name, Qualifier: typePath, Role: role})
	}
	return out
}

// reexported follows a relative module that declares no such name to the
// module it passes the name on from: `export {a as name} from "./b"` or
// `export * from "./b"` in the module file or its index file.
func (r *Resolver) reexported(f *analysis.FileFacts, name, module string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	var files []string
	if f.Lang == "python" {
		// A package's __init__ passes on names from absolute imports too
		// (pytest.raises is _pytest.python_api's).
		files = r.moduleFiles(f.Path, module)
	} else if strings.HasPrefix(module, ".") {
		base, ext := path.Join(path.Dir(f.Path), module), path.Ext(f.Path)
		files = []string{base, base + ext, base + "/index" + ext}
		if strings.HasSuffix(f.Path, ".d.ts") || strings.HasSuffix(f.Path, ".d.mts") || strings.HasSuffix(f.Path, ".d.cts") {
			// A declaration file names declaration files, often by the
			// JavaScript they describe ("./util.js", "./types.cjs").
			files = append(files, base+".d.ts", stripExt(base)+".d.ts", stripExt(base)+".d.mts", stripExt(base)+".d.cts", base+"/index.d.ts")
		}
	}
	return r.reexportedIn(files, name, role, conf, depth)
}

// reexportedIn follows the re-exports of name in files.
func (r *Resolver) reexportedIn(files []string, name string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	var out []Candidate
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for _, imp := range g.Imports {
			if imp.Path == "" && imp.Alias == name && ecmaLang(g.Lang) {
				return r.declaredAtTopOf([]string{p}, imp.Name, role, conf, depth+1) // `export { a as name }`
			}
			if !imp.Wildcard && cmp.Or(imp.Alias, imp.Name) == name {
				// A Python module may try several imports of the name
				// (simplejson's, else json's): the one that resolves.
				if c := r.importedFrom(g, imp.Name, importModule(imp), role, conf, depth); len(c) > 0 || g.Lang != "python" {
					return c
				}
			}
		}
		for _, imp := range g.Imports {
			if imp.Wildcard {
				out = append(out, r.importedFrom(g, name, imp.Path, role, conf, depth)...)
			}
		}
	}
	return out
}

// topLevelIn finds top-level declarations named name in package pkg. The
// name tables say which files declare the name at all: only those of them
// in the package are decoded, not every file of the package (syscall has
// hundreds).
func (r *Resolver) topLevelIn(lang, pkg, name string, role analysis.Role, conf float64) []Candidate {
	var out []Candidate
	var files map[string]bool
	for _, e := range r.defs(name) {
		if e.Nested || !sameFamily(e.Lang, lang) {
			continue
		}
		if files == nil {
			files = r.packageFiles(lang, pkg)
		}
		if !files[e.Path] {
			continue
		}
		if g := r.file(e.Path); g != nil && g.Defs[e.Index].Container == analysis.None {
			out = r.add(out, e.Path, e.Index, conf, ViaImport, role)
		}
	}
	return out
}

// packageFiles is the set of files of a package, made once per resolver.
func (r *Resolver) packageFiles(lang, pkg string) map[string]bool {
	return memo(&r.mu, r.packages, [2]string{lang, pkg}, func(key [2]string) map[string]bool {
		paths := r.ws.FilesInPackage(key[0], key[1])
		if other := jvmPartner(key[0]); other != "" {
			// Kotlin and Java classes of one package see each other.
			paths = append(slices.Clip(paths), r.ws.FilesInPackage(other, key[1])...)
		}
		set := make(map[string]bool, len(paths))
		for _, p := range paths {
			set[p] = true
		}
		return set
	})
}

// moduleMatches reports whether an import path such as "pkg.mod", "./mod",
// "crate::a::b" or "example.com/x/y" names the file target, imported from
// the file from.
func moduleMatches(from, target, importPath string) bool {
	if importPath == "" {
		return false
	}
	if strings.HasPrefix(importPath, ".") && strings.Contains(importPath, "/") {
		importPath = path.Join(path.Dir(from), importPath)
		// ES modules name files with their extension: "./date.js", which
		// a declaration file date.d.ts describes.
		t := strings.TrimSuffix(stripExt(target), ".d")
		return t == importPath || t == stripExt(importPath) || path.Dir(target) == importPath
	}
	segs := strings.FieldsFunc(importPath, func(r rune) bool { return r == '.' || r == '/' || r == ':' })
	if len(segs) > 0 && (segs[0] == "self" || segs[0] == "super") && path.Ext(from) == ".rs" {
		return rustRelative(from, target, segs)
	}
	if len(segs) > 0 && segs[0] == "crate" {
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return false
	}
	suffix := "/" + strings.Join(segs, "/")
	t := "/" + stripExt(target)
	return strings.HasSuffix(t, suffix) || strings.HasSuffix(path.Dir(t), suffix) ||
		strings.HasSuffix(t, suffix+"/__init__") || strings.HasSuffix(t, suffix+"/mod")
}

// rustRelative reports whether a Rust path starting with self:: or super::
// names the file target, seen from the file from.
func rustRelative(from, target string, segs []string) bool {
	mod := stripExt(from)
	switch path.Base(mod) {
	case "mod", "lib", "main":
		mod = path.Dir(mod)
	}
	for len(segs) > 0 && (segs[0] == "self" || segs[0] == "super") {
		if segs[0] == "super" {
			mod = path.Dir(mod)
		}
		segs = segs[1:]
	}
	want := path.Join(append([]string{mod}, segs...)...)
	t := stripExt(target)
	switch path.Base(t) {
	case "mod", "lib", "main":
		t = path.Dir(t)
	}
	return t == want
}

func stripExt(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }

// byName is the last resort: every definition with the name (members only:
// declared in a type or with a receiver), each with a confidence below the
// threshold that shrinks with the number of candidates. The guesses come
// from the name tables: a common name has thousands, and decoding their
// files cost most of a failed lookup. Only a definition outside Go that
// may be an extension is looked at in its file.
func (r *Resolver) byName(name string, role analysis.Role, members bool) []Candidate {
	var out []Candidate
	for _, e := range r.defs(name) {
		fit := kindFit(role, e.Kind)
		if fit == 0 || e.Kind == analysis.KindParameter || e.Kind == analysis.KindVariable && e.Nested {
			continue
		}
		if members && !e.Nested {
			// A Go definition the name table lists at the top level is a
			// member only when it is a method (with a receiver).
			if e.Lang == "go" && e.Kind != analysis.KindMethod || e.Lang != "go" && !mayHaveReceiver(e) {
				continue
			}
			if e.Lang != "go" {
				if _, d, ok := r.entry(e.DefID); !ok || d.Container == analysis.None && d.Receiver == "" {
					continue
				}
			}
		}
		out = append(out, Candidate{Def: e.DefID, Name: name, Kind: e.Kind, NameSpan: e.NameSpan, Confidence: confWorkspace * fit, Via: ViaWorkspace})
	}
	for i := range out {
		out[i].Confidence /= float64(len(out))
	}
	return out
}

// add appends the candidate when its kind fits the reference's role.
func (r *Resolver) add(out []Candidate, file string, index int32, conf float64, via Via, role analysis.Role) []Candidate {
	_, d, ok := r.entry(DefID{file, index})
	if !ok {
		return out
	}
	fit := kindFit(role, d.Kind)
	if fit == 0 {
		return out
	}
	return append(out, r.candidate(DefID{file, index}, conf*fit, via))
}

func (r *Resolver) candidate(id DefID, conf float64, via Via) Candidate {
	d := r.file(id.Path).Defs[id.Index]
	return Candidate{Def: id, Name: d.Name, Kind: d.Kind, NameSpan: d.NameSpan, Confidence: conf, Via: via}
}

// tied reports whether another candidate of another file is as confident
// as c[i].
func tied(c []Candidate, i int) bool {
	for j, x := range c {
		if j != i && x.Confidence == c[i].Confidence && x.Def.Path != c[i].Def.Path {
			return true
		}
	}
	return false
}

// kindFit scores how well a definition kind fits a reference role: 1 is a
// natural fit, 0 excludes the kind.
func kindFit(role analysis.Role, k analysis.Kind) float64 {
	switch {
	case role&(analysis.RoleType|analysis.RoleInheritance) != 0:
		if k.IsType() || k == analysis.KindTypeParameter {
			return 1
		}
		if k == analysis.KindPackage || k == analysis.KindModule {
			return 0.8
		}
		return 0
	case role&analysis.RoleCall != 0:
		switch k {
		case analysis.KindFunction, analysis.KindMethod:
			return 1
		case analysis.KindClass, analysis.KindStruct, analysis.KindObject, analysis.KindEnum, analysis.KindEnumEntry:
			return 0.98 // constructor calls such as Foo() name the class
		case analysis.KindConstructor:
			return 0.96
		case analysis.KindInterface, analysis.KindTrait, analysis.KindTypeAlias, analysis.KindTypeParameter:
			return 0.6
		}
		return 0.8 // a variable holding a function
	}
	if k == analysis.KindConstructor {
		return 0
	}
	return 1
}

// finish sorts candidates best first, drops duplicates and flags the
// uncertain ones. Among equally confident Go candidates, those built for
// the platform of the file from come first (see goBuildFit).
func (r *Resolver) finish(from string, c []Candidate) []Candidate {
	// A candidate's platform fit is worked out once, not at every comparison.
	type fitted struct {
		c   Candidate
		fit int
	}
	fs := make([]fitted, len(c))
	for i, x := range c {
		fs[i] = fitted{x, 2 * goBuildFit(from, x.Def.Path)}
	}
	if strings.HasSuffix(from, ".go") && len(c) > 1 && len(c) <= maxConstrained {
		// Files whose names fit alike may still be told apart by their
		// //go:build lines (syscall_linux_mips64x.go is for mips64 only):
		// read only for certain candidates tied with another.
		for i := range fs {
			if x := fs[i].c; fs[i].fit == 2 && x.Confidence >= r.threshold && tied(c, i) &&
				strings.HasSuffix(x.Def.Path, ".go") && !r.constraintFits(from, x.Def.Path) {
				fs[i].fit = 1
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b fitted) int {
		if n := cmp.Compare(b.c.Confidence, a.c.Confidence); n != 0 {
			return n
		}
		return cmp.Compare(b.fit, a.fit)
	})
	for i := range fs {
		c[i] = fs[i].c
	}
	c = r.withoutUnreachable(withoutStubbedSources(r.withoutOverloads(c)))
	seen := map[DefID]bool{}
	out := c[:0]
	for _, x := range c {
		if seen[x.Def] {
			continue
		}
		seen[x.Def] = true
		x.Uncertain = x.Confidence < r.threshold
		out = append(out, x)
	}
	return out
}
