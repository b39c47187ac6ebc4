// The resolver's ranking (scope, members, package, imports, receiver types)
// is one ordered procedure. Its steps, in the order they apply: resolve.go
// (types and dispatch), plainnames.go (scope chain and package), imports.go
// (imports and re-exports), ranking.go (last-resort guesses and ordering).

package resolve

import (
	"cmp"
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
// lookups, so make a new one after the workspace changes. Each goroutine
// resolving at once should take its own View.
type Resolver struct {
	*resolverState
	// typing holds the chains this view is inferring the types of: met
	// again inside their own inference, they have none. It is the view's
	// own, so that one query never reads another's inference in progress
	// as a chain without a type.
	typing *inProgress
}

// resolverState is what every view of a resolver shares: the workspace and
// the caches.
type resolverState struct {
	ws        Workspace
	threshold float64

	mu           sync.Mutex
	constraints  map[constraintKey]bool
	names        map[*analysis.FileFacts]map[string][]int32
	scoped       map[*analysis.FileFacts]scopeTable
	goMethods    map[[2]string][]DefEntry // (name, directory) → Go methods
	goImports    map[goImportKey]goImportAnswer
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
	pyConfigured *[]int                // see pythonConfiguredVersion
	importers    map[string][]importer // see importerDirs
	goMods       map[string]string     // see modulePath
	importDirs   map[string][]string   // see mayImport
	relModules   map[string][]string   // see relativeModuleFilesOf
	hinted       hintedMemo            // see hintedNamed
	held         map[string]*heldFile  // see holdWhole
	released     *sync.Cond            // on mu: a held file was let go
	byDir        dirMemo               // see topLevelByDir
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

// View returns a resolver sharing r's workspace and caches, for one
// goroutine: answers do not depend on what other views infer meanwhile.
func (r *Resolver) View() *Resolver {
	return &Resolver{resolverState: r.resolverState, typing: &inProgress{}}
}

// inProgress is a set of chains being typed.
type inProgress struct {
	mu   sync.Mutex
	keys map[chainKey]bool
}

// enter marks key as being typed; false when it already is.
func (p *inProgress) enter(key chainKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys[key] {
		return false
	}
	if p.keys == nil {
		p.keys = map[chainKey]bool{}
	}
	p.keys[key] = true
	return true
}

func (p *inProgress) leave(key chainKey) {
	p.mu.Lock()
	delete(p.keys, key)
	p.mu.Unlock()
}

// New returns a resolver over ws with DefaultThreshold.
func New(ws Workspace) *Resolver {
	return &Resolver{typing: &inProgress{}, resolverState: &resolverState{
		ws:           ws,
		threshold:    DefaultThreshold,
		constraints:  map[constraintKey]bool{},
		names:        map[*analysis.FileFacts]map[string][]int32{},
		scoped:       map[*analysis.FileFacts]scopeTable{},
		goMethods:    map[[2]string][]DefEntry{},
		goImports:    map[goImportKey]goImportAnswer{},
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
		relModules:   map[string][]string{},
	}}
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
	if nt, ok := r.ws.(NameTables); ok {
		if table := nt.NamesOf(f); table != nil {
			return table[name]
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	table, ok := r.names[f]
	if !ok {
		if !r.tableFor(f) {
			return definedAs(f, func(d *analysis.Def) bool { return d.Name == name })
		}
		table = NameTable(f)
		r.names[f] = table
	}
	return table[name]
}

// definedAs returns the indexes of f's definitions that match. A name
// table that would not be kept (f is not memoized) costs more than one
// scan: built for each lookup, such tables were a seventh of what the
// reference pass allocated on ten million lines.
func definedAs(f *analysis.FileFacts, match func(*analysis.Def) bool) []int32 {
	var out []int32
	for i := range f.Defs {
		if match(&f.Defs[i]) {
			out = append(out, int32(i))
		}
	}
	return out
}

// scopedName is a name declared in one scope.
type scopedName struct {
	scope int32
	name  string
}

// namedIn returns the indexes of f's definitions called name declared in
// scope, in order. Scope lookups run for every reference, and a generated
// file can declare thousands of parameters of one name, each in its own
// scope. The result must not be modified.
func (r *Resolver) namedIn(f *analysis.FileFacts, scope int32, name string) []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	table, ok := r.scoped[f]
	if !ok {
		if !r.tableFor(f) {
			return definedAs(f, func(d *analysis.Def) bool { return d.Scope == scope && d.Name == name })
		}
		table = newScopeTable(f)
		r.scoped[f] = table
	}
	return table.named(f, scopedName{scope, name})
}

// scopeTable is a file's definition indexes sorted by scope, then name,
// then index: a map from scope and name to indexes, built for each file a
// resolver reads, was 14% of what a pass over ten million lines allocated,
// and this takes a twelfth of its bytes.
type scopeTable []int32

func newScopeTable(f *analysis.FileFacts) scopeTable {
	t := make(scopeTable, len(f.Defs))
	for i := range t {
		t[i] = int32(i)
	}
	slices.SortFunc(t, func(a, b int32) int {
		da, db := &f.Defs[a], &f.Defs[b]
		return cmp.Or(cmp.Compare(da.Scope, db.Scope), strings.Compare(da.Name, db.Name), cmp.Compare(a, b))
	})
	return t
}

// named returns the run of t's indexes whose definitions are key's.
func (t scopeTable) named(f *analysis.FileFacts, key scopedName) []int32 {
	compare := func(i int32, k scopedName) int {
		d := &f.Defs[i]
		return cmp.Or(cmp.Compare(d.Scope, k.scope), strings.Compare(d.Name, k.name))
	}
	lo, found := slices.BinarySearchFunc(t, key, compare)
	if !found {
		return nil
	}
	hi := lo + 1
	for hi < len(t) && compare(t[hi], key) == 0 {
		hi++
	}
	return t[lo:hi:hi]
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

// maxDepthJVM is maxDepth for Kotlin, Java and Python, whose members are often
// reached through a variable's value and then three or four supertypes
// (a test's command, its base classes, the interface an extension is on;
// flask.request's RequestProxy, flask's Request, werkzeug's and its sansio base).
const maxDepthJVM = 9

// maxDepthTS is maxDepth for TypeScript, whose types go through aliases,
// utility types and callbacks typed from their context: ky's test server
// is an awaited intersection alias whose `all` handler's request reaches
// node's IncomingHttpHeaders eleven steps down.
const maxDepthTS = 11

// tooDeep reports whether recursion at depth has gone past the bound of
// the language of the file at path.
func (r *Resolver) tooDeep(lang string, depth int) bool {
	if ecmaLang(lang) {
		return depth > maxDepthTS
	}
	if overloadLangs[lang] || lang == "python" {
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
		if c := r.globals(f.Path, ref); len(c) > 0 {
			return c
		}
	}
	if f.Lang == "python" {
		c := r.builtins(ref)
		if len(c) == 0 && ref.Role&(analysis.RoleType|analysis.RoleInheritance) != 0 {
			c = r.pythonBuiltinClassAliases(ref, depth)
		}
		if len(c) > 0 || r.pythonBindsModule(f, ref.Name) || moduleAttributes[ref.Name] {
			return c // a module is no declaration: ModuleAt answers, or nothing does
		}
	}
	if c := r.defaultImported(f, ref); len(c) > 0 {
		return c
	}
	return r.byName(ref.Name, ref.Role, false)
}
