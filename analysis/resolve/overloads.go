package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Overloads: a Kotlin or Java call whose name several functions of one
// scope share binds to the one its arguments fit, as the compiler would:
// by count, names, defaults, varargs, a trailing lambda and what literal
// arguments say of their types. An overload the arguments cannot fit is
// dropped; one that fits less well is kept as a guess; overloads that fit
// equally stay tied, and their references say the binding is ambiguous.

// overloadLangs are the languages whose calls carry argument shapes.
var overloadLangs = map[string]bool{"kotlin": true, "java": true}

// maxOverloads bounds the overloads a call is bound among.
const maxOverloads = 256

// param is one declared parameter, as its signature writes it.
type param struct {
	name, typ       string
	deflt, variadic bool
}

// arg is one argument of a call's shape.
type arg struct {
	name, code string
}

// bindOverloads narrows a call's tied best candidates to the overloads its
// arguments fit best. c is sorted best first.
func (r *Resolver) bindOverloads(f *analysis.FileFacts, ref analysis.Ref, c []Candidate) []Candidate {
	if ecmaLang(f.Lang) {
		return r.tsMergedFirst(ref, r.tsBindOverloads(ref, c))
	}
	if !overloadLangs[f.Lang] || len(c) < 2 {
		return c
	}
	n := topTies(c)
	if n < 2 || n > maxOverloads {
		// A generated file with thousands of overloads of one name is left
		// to name matching: binding costs grow with the square of them.
		return c
	}
	if ref.Role&(analysis.RoleCall|analysis.RoleImport) == 0 {
		return r.valuesOverFunctions(c, n)
	}
	var recv map[DefID]int
	if ref.Qualifier == "" {
		c, n, recv = r.implicitReceivers(f, ref, c, n)
	}
	if ref.Args == "" || n < 2 {
		return nearestReceivers(c, n, recv)
	}
	args := parseArgs(ref.Args)
	for i, a := range args {
		if name, ok := strings.CutPrefix(a.code, "$"); ok {
			// A variable passed as an argument: its declared type.
			args[i].code = "_"
			vref := ref
			vref.Qualifier = name
			if ts := r.writtenTypes(f, vref, 1); len(ts) == 1 {
				args[i].code = "t:" + strings.TrimSpace(ts[0])
			}
		}
	}
	fits := make([]fit, n)
	shapes := make([]string, n)
	extension := make([]bool, n)
	for i := range n {
		d := r.file(c[i].Def.Path).Defs[c[i].Def.Index]
		if !isCallable(d.Kind) {
			return c
		}
		extension[i] = d.Receiver != ""
		if params, ok := signatureParams(d); ok {
			fits[i] = fitArgs(f.Lang, r.inheritDefaults(c[i].Def, d, params), args, func(a, p string) int { return r.argFit(f, a, p) })
			shapes[i] = paramShape(params)
		} else {
			// Unknown parameters may fit anything, as well as any other.
			fits[i] = fit{ok: true, unsure: true, evidence: len(args)}
		}
	}
	// An expect function and its actuals have one parameter list, whose
	// default values only the expect declares: they fit as well as it.
	for i := range n {
		for j := range n {
			if shapes[i] != "" && shapes[i] == shapes[j] && fits[j].better(fits[i]) {
				fits[i] = fits[j]
			}
		}
	}
	best := bestFits(fits)
	if f.Lang == "kotlin" && ref.Qualifier != "" {
		best = membersOverExtensions(fits, extension, best)
	}
	if len(best) > 1 && len(recv) > 0 {
		// Among overloads that fit alike, an extension on the receiver's
		// own class is more specific than one on its supertype.
		near := -1
		for i := range best {
			if d := recv[c[i].Def]; near < 0 || d < near {
				near = d
			}
		}
		for i := range best {
			if recv[c[i].Def] != near {
				delete(best, i)
			}
		}
	}
	if len(best) == 0 {
		// No overload fits: the shape or a signature is misread.
		return c
	}
	if len(best) == n {
		// All fit alike: the tie stands, the most specific first.
		return r.specificFirst(c)
	}
	out := make([]Candidate, 0, len(c))
	for i, x := range c {
		if i < n {
			if !fits[i].ok {
				continue
			}
			if !best[i] {
				x.Confidence *= 0.4
			}
		}
		x.Uncertain = x.Confidence < r.threshold
		out = append(out, x)
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	return r.specificFirst(out)
}

// membersOverExtensions keeps a qualified Kotlin call's best fits to the
// receiver's members when any member fits at all: the compiler looks at
// extensions only when no member applies (`s.compareTo(t)` calls
// String.compareTo, not the extension with an ignoreCase default). The
// extensions stay as guesses.
func membersOverExtensions(fits []fit, extension []bool, best map[int]bool) map[int]bool {
	members := make([]fit, len(fits))
	anyMember := false
	for i, f := range fits {
		if !extension[i] {
			members[i] = f
			anyMember = anyMember || f.ok
		}
	}
	if !anyMember {
		return best
	}
	return bestFits(members)
}

// specificFirst orders the tied best overloads of c so that one whose
// parameter types are all subtypes of another's comes before it: when the
// arguments fit both, Kotlin and Java call the more specific. They stay
// tied, and their references ambiguous.
func (r *Resolver) specificFirst(c []Candidate) []Candidate {
	n := topTies(c)
	if n < 2 || n > 16 {
		return c
	}
	params := make([][]param, n)
	for i := range n {
		d := r.file(c[i].Def.Path).Defs[c[i].Def.Index]
		p, ok := signatureParams(d)
		if !ok || !isCallable(d.Kind) {
			return c
		}
		params[i] = p
	}
	moreSpecific := func(a, b []param) bool {
		if len(a) != len(b) || len(a) == 0 {
			return false
		}
		strict := false
		for k := range a {
			switch v := r.argFit(nil, a[k].typ, b[k].typ); {
			case v == 1:
			case v >= 3:
				strict = true
			default:
				return false
			}
		}
		return strict
	}
	score := make(map[DefID]int, n)
	for i := range n {
		for j := range n {
			if i != j && moreSpecific(params[i], params[j]) {
				score[c[i].Def]++
			}
		}
	}
	slices.SortStableFunc(c[:n], func(a, b Candidate) int { return score[b.Def] - score[a.Def] })
	return c
}

func isCallable(k analysis.Kind) bool {
	return k == analysis.KindFunction || k == analysis.KindMethod || k == analysis.KindConstructor
}

// parseArgs splits "(s,x=i,^)" into its arguments.
func parseArgs(shape string) []arg {
	inner := strings.TrimSuffix(strings.TrimPrefix(shape, "("), ")")
	if inner == "" {
		return nil
	}
	var out []arg
	for _, a := range strings.Split(inner, ",") {
		name, code, ok := strings.Cut(a, "=")
		if !ok {
			name, code = "", a
		}
		out = append(out, arg{name, code})
	}
	return out
}

// fit is how well a call's arguments fit an overload's parameters.
type fit struct {
	ok       bool // the arguments can be passed
	evidence int  // arguments whose type matches their parameter, exactly or as a subtype
	// varargs counts vararg calls, which Kotlin and Java take only when no
	// overload fits without; distance counts arguments passed as a
	// supertype of theirs (the more specific overload wins); penalty
	// counts default values used and Java's widenings.
	varargs, distance, penalty int
	unsure                     bool // some argument's type is unknown
	// unknown lists the parameter types the arguments of unknown type
	// are passed to: overloads taking them as the same types are told
	// apart by the rest.
	unknown string
}

func (a fit) better(b fit) bool {
	if a.ok != b.ok {
		return a.ok
	}
	if a.evidence != b.evidence {
		return a.evidence > b.evidence
	}
	return a.rank().less(b.rank())
}

// rank orders overloads that fit with the same evidence: fewer varargs,
// then more specific types, then fewer defaults.
type rank [3]int

func (f fit) rank() rank { return rank{f.varargs, f.distance, f.penalty} }

func (a rank) less(b rank) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// bestFits marks the overloads a call binds to: those with the most type
// evidence; among several, when every argument's type is known, those
// needing the fewest varargs, the most specific and then the fewest
// defaults. With an argument of unknown type the language's preference
// cannot be applied, and they stay tied.
func bestFits(fits []fit) map[int]bool {
	top := -1
	for i, f := range fits {
		if f.ok && (top < 0 || f.evidence > fits[top].evidence) {
			top = i
		}
	}
	if top < 0 {
		return nil
	}
	best := map[int]bool{}
	unsure := false
	for i, f := range fits {
		if f.ok && f.evidence == fits[top].evidence {
			best[i] = true
			unsure = unsure || f.unknown != fits[top].unknown || f.unsure && f.unknown == ""
		}
	}
	if unsure || len(best) == 1 {
		return best
	}
	least := -1
	for i := range best {
		if least < 0 || fits[i].rank().less(fits[least].rank()) {
			least = i
		}
	}
	for i := range best {
		if fits[i].rank() != fits[least].rank() {
			delete(best, i)
		}
	}
	return best
}

// fitArgs matches args to params as Kotlin and Java do: positional
// arguments in order (a vararg takes the rest), named ones by name, a
// trailing lambda to the last parameter, defaults and varargs for what is
// left.
func fitArgs(lang string, params []param, args []arg, typeFit func(arg, param string) int) fit {
	assigned := make([]bool, len(params))
	var out fit
	pos := 0
	for i, a := range args {
		var p int
		switch {
		case a.code == "^" && i == len(args)-1:
			p = len(params) - 1
			if p < 0 || assigned[p] || !mayBeFunction(params[p].typ) {
				return fit{}
			}
			assigned[p] = true
			continue
		case a.name != "":
			p = slices.IndexFunc(params, func(x param) bool { return x.name == a.name })
			if p < 0 || assigned[p] {
				return fit{}
			}
		default:
			if pos >= len(params) {
				return fit{}
			}
			p = pos
			if !params[p].variadic {
				pos++
			} else if !assigned[p] {
				out.varargs++
			}
		}
		assigned[p] = true
		lit := 0
		if typ, ok := strings.CutPrefix(a.code, "t:"); ok && typeFit != nil {
			lit = typeFit(typ, params[p].typ)
		} else {
			lit = literalFit(lang, a.code, params[p])
		}
		switch lit {
		case -1:
			return fit{}
		case 1:
			out.evidence++
		case 2:
			out.evidence++
			out.penalty++
		case 0:
			if t := strings.TrimSpace(params[p].typ); t != "Any" && t != "Any?" && t != "Object" {
				out.unsure = true
				out.unknown += strings.ReplaceAll(t, " ", "") + ";"
			}
		default: // a subtype, lit-2 steps below the parameter's type
			out.evidence++
			out.distance += lit - 2
		}
	}
	for i, p := range params {
		if !assigned[i] {
			switch {
			case p.variadic:
				out.varargs++ // an empty vararg is a vararg call still
				if p.deflt {
					out.penalty++
				}
			case p.deflt:
				out.penalty++
			default:
				return fit{}
			}
		}
	}
	out.ok = true
	return out
}

// valueTypes are the types whose literals are known: an argument of another
// literal kind cannot be passed to a parameter of one of them.
var valueTypes = map[string]bool{
	"String": true, "CharSequence": true, "Int": true, "Long": true, "Short": true, "Byte": true,
	"Double": true, "Float": true, "Boolean": true, "Char": true, "int": true, "long": true, "short": true,
	"byte": true, "double": true, "float": true, "boolean": true, "char": true, "Integer": true, "Character": true,
	"List": true, "Map": true, "Set": true, "Array": true, "ByteArray": true, "IntArray": true,
	"LongArray": true, "CharArray": true, "ShortArray": true, "DoubleArray": true, "FloatArray": true,
	"BooleanArray": true, "UByte": true, "UInt": true, "ULong": true, "UShort": true,
}

// accepts lists, per literal code, the value types a literal of it fits.
var accepts = map[string]map[string]bool{
	"s": {"String": true, "CharSequence": true},
	"i": {"Int": true, "Long": true, "Short": true, "Byte": true, "int": true, "long": true, "short": true, "byte": true, "Integer": true},
	"L": {"Long": true, "long": true},
	"d": {"Double": true, "Float": true, "double": true, "float": true},
	"b": {"Boolean": true, "boolean": true},
	"c": {"Char": true, "char": true, "Character": true},
}

// javaWidening adds the primitive conversions Java applies to literals.
var javaWidening = map[string]map[string]bool{
	"i": {"float": true, "double": true},
	"L": {"float": true, "double": true},
	"c": {"int": true, "long": true, "float": true, "double": true},
}

// literalFit is 1 when a literal of code fits p's type exactly, 2 when it
// fits by Java's widening, 0 when it may fit, -1 when it cannot.
func literalFit(lang, code string, p param) int {
	t := strings.TrimSpace(p.typ)
	nullable := strings.HasSuffix(t, "?")
	base := baseTypeName(strings.TrimSuffix(t, "?"))
	switch code {
	case "*":
		if p.variadic {
			return 1
		}
		return -1
	case "n":
		if lang == "kotlin" && !nullable && valueTypes[base] || lang == "java" && isJavaPrimitive(base) {
			return -1
		}
		return 0
	case "f":
		switch {
		case strings.Contains(t, "->"):
			return 1
		case mayBeFunction(t):
			return 0
		}
		return -1
	}
	if typ, ok := strings.CutPrefix(code, "t:"); ok {
		return typeFit(typ, t)
	}
	ok, known := accepts[code]
	if !known || t == "" {
		return 0
	}
	if ok[base] {
		return 1
	}
	if lang == "java" && javaWidening[code][base] {
		return 2 // fits, but Java prefers an overload taking it as it is
	}
	if valueTypes[base] || strings.Contains(t, "->") {
		return -1
	}
	// A literal's class is final: a parameter of another class (not a
	// supertype such as Any, not a type parameter T) cannot take it.
	if !literalSupertypes[base] && len(base) > 2 && base[0] >= 'A' && base[0] <= 'Z' {
		return -1
	}
	return 0
}

// literalSupertypes are the types a literal's class may be passed as.
var literalSupertypes = map[string]bool{
	"Any": true, "Object": true, "Comparable": true, "CharSequence": true, "Number": true, "Serializable": true,
	"Appendable": true,
}

// typeFit is 1 when an argument of the written type arg fits a parameter
// of type param exactly, 0 when it may (a subtype, a type parameter), -1
// when a value type rules it out.
func typeFit(arg, param string) int {
	if param == "" || strings.Contains(param, "->") || strings.Contains(arg, "->") {
		return 0
	}
	a := baseTypeName(strings.TrimSuffix(arg, "?"))
	p := baseTypeName(strings.TrimSuffix(strings.TrimSpace(param), "?"))
	switch {
	case a == p:
		return 1
	case p == "Any" || p == "Object" || len(p) == 1:
		return 0
	case valueTypes[a] || valueTypes[p]:
		return -1
	case collectionTypes[p] && !collectionTypes[a]:
		// Few classes of a project are collections themselves.
		return -1
	}
	return 0
}

// collectionTypes are the collection interfaces an argument of another
// type is taken not to implement.
var collectionTypes = map[string]bool{
	"Iterable": true, "Collection": true, "List": true, "Set": true, "Map": true, "Sequence": true,
	"MutableList": true, "MutableSet": true, "MutableMap": true, "MutableCollection": true, "MutableIterable": true,
	"ArrayList": true, "HashMap": true, "HashSet": true, "LinkedHashMap": true, "LinkedHashSet": true, "Array": true,
}

func isJavaPrimitive(t string) bool {
	switch t {
	case "int", "long", "short", "byte", "double", "float", "boolean", "char":
		return true
	}
	return false
}

// mayBeFunction reports whether a parameter of type t may take a lambda.
func mayBeFunction(t string) bool {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "?"))
	return t == "" || strings.Contains(t, "->") || !valueTypes[baseTypeName(t)]
}

// valuesOverFunctions drops, from the n tied best candidates of a name that
// is read or written, not called, the functions when a property or
// variable is among them: in Kotlin and Java only `::f` reads a function.
func (r *Resolver) valuesOverFunctions(c []Candidate, n int) []Candidate {
	values := slices.ContainsFunc(c[:n], func(x Candidate) bool { return !isCallable(x.Kind) && !x.Kind.IsType() })
	if !values {
		return c
	}
	out := c[:0:0]
	for i, x := range c {
		if i < n && isCallable(x.Kind) {
			continue
		}
		out = append(out, x)
	}
	return out
}

// inheritDefaults gives an override's parameters the default values of the
// function it overrides: Kotlin forbids writing them again, yet a call
// may leave them out.
func (r *Resolver) inheritDefaults(id DefID, d analysis.Def, params []param) []param {
	if !hasModifier(d.Signature, "override") || d.Container == analysis.None {
		return params
	}
	g := r.file(id.Path)
	if !g.Defs[d.Container].Kind.IsType() {
		return params
	}
	shape := paramShape(params)
	for _, c := range r.inherited(DefID{id.Path, d.Container}, d.Name, analysis.RoleCall, 1, 1) {
		base := r.file(c.Def.Path).Defs[c.Def.Index]
		bp, ok := signatureParams(base)
		if !ok || len(bp) != len(params) || paramShape(bp) != shape {
			continue
		}
		out := slices.Clone(params)
		for i := range out {
			out[i].deflt = out[i].deflt || bp[i].deflt
		}
		return out
	}
	return params
}

// inheritedOverloads lists the overloads of name that t inherits beside the
// ones it declares, as sure as those: a call may bind to either. An
// inherited function with the shape of a declared one is overridden.
func (r *Resolver) inheritedOverloads(t DefID, declared []Candidate, name string, role analysis.Role, conf float64, depth int) []Candidate {
	shapes := map[string]bool{}
	for _, c := range declared {
		d := r.file(c.Def.Path).Defs[c.Def.Index]
		if !isCallable(d.Kind) {
			return nil
		}
		shapes[OverloadShape(d)] = true
	}
	var out []Candidate
	for _, c := range r.inherited(t, name, role, conf, depth+1) {
		d := r.file(c.Def.Path).Defs[c.Def.Index]
		if s := OverloadShape(d); isCallable(d.Kind) && s != "" && !shapes[s] {
			shapes[s] = true
			c.Confidence = conf
			out = append(out, c)
		}
	}
	return out
}
