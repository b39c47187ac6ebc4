package resolve

import (
	"hash/fnv"
	"path"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Before the pass, a query for a Go field or method resolves every
// reference so named in the folders that may import its package: for Pos
// or Len, hundreds of files decoded whole to find a few uses. Most of those
// selectors are x.Pos with x a parameter, receiver or local whose type is
// written in its declaration (n ir.Node, b *bytes.Buffer), and the
// resolver finds x.Pos among the members of that type alone: declared by
// it, by what it embeds, or by the type it is declared as. So the hint of
// such a selector carries a hash of the type's name (hintTyped), and a
// query sets aside the candidates whose type is none of the types that
// may carry the member (memberCarriers), without decoding their files.

// hintTypeBits hold a typed selector's type hash, where a selector's
// import index is.
const (
	hintTypeShift = hintImpShift
	hintTypeBits  = hintImpBits
)

// typeHash is a type name's hint bits: equal names hash alike.
func typeHash(name string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return uint64(h.Sum32()) & (1<<hintTypeBits - 1)
}

// varType is a typed selector's qualifier's type, as qualifierType finds
// it: its base name and what qualifies it where it is written ("" when
// nothing does). mixed says that its declarations qualify it differently.
// chain is set when the qualifier's type is not written but reached from
// a variable of that type (see chainType): the type's spelling and the
// steps taken from it.
type varType struct {
	name, qual string
	mixed      bool
	// written is the type as one declaration spells it, without a leading
	// `*` or `&` ("" for several declarations).
	written string
	chain   string
	// pkgRoot says that the chain starts at an import, qual, and name is
	// the member of its package taken first.
	pkgRoot bool
}

// maxChain bounds how many variables a chain type goes through
// (`v := b.Values[i]; a := v.Args[0]; a.Pos` goes through two).
const maxChain = 3

// qualifierType returns the type of what a selector's plain qualifier
// names, when the file alone settles it as the resolver
// looks it up: in the innermost scope around the reference that declares
// the name (inside a body: the file's scope holds package-level names,
// which other files share), every definition so named is a parameter or
// variable declared before the reference, all of one type. The type is
// the written one (not an anonymous struct, not a type parameter of the
// file), or else one that the variable's value spells: an assertion
// `x.(*T)`, a composite literal `&T{}`, `new(T)`; or else a chain from
// such a variable (chainType).
func (h *fileHinter) qualifierType(ref analysis.Ref) (varType, bool) {
	q := ref.Qualifier
	h.index()
	if written := typeSpelling(analysis.Def{Value: q}); written != "" {
		// A composite literal's keys or method (`syntax.Error{Pos: p}`),
		// new(T).M(), x.(T).M(): the resolver looks the type up where the
		// expression is, as a variable's written type.
		t := varType{name: baseTypeName(written), qual: typeQualifier(written)}
		return t, t.name != "" && (t.qual != "" || !h.typeParams[t.name])
	}
	if q == "" {
		return varType{}, false
	}
	if isName(q) && !strings.Contains(q, ".") {
		return h.nameType(q, ref.Scope, ref.Span.Start, 0)
	}
	// An expression: `w.Header()`, `time.Now()`, `p.Args[i]`.
	root, steps, ok := valueChain(q)
	if !ok || steps == "" {
		return varType{}, false
	}
	return h.chainFrom(root, steps, ref.Scope, ref.Span.Start, 0)
}

// index lists the file's definitions by name and by scope and name, and
// its type parameters, once.
func (h *fileHinter) index() {
	if h.named != nil {
		return
	}
	h.named, h.scoped, h.typeParams = map[string]int{}, map[scopedName][]int32{}, map[string]bool{}
	for i, d := range h.f.Defs {
		h.named[d.Name]++
		k := scopedName{d.Scope, d.Name}
		h.scoped[k] = append(h.scoped[k], int32(i))
		if d.Kind == analysis.KindTypeParameter {
			h.typeParams[d.Name] = true
		}
	}
}

// nameType is qualifierType for the name q looked up from scope at the
// offset at, through at most maxChain-depth variables' values.
func (h *fileHinter) nameType(q string, scope int32, at, depth int) (varType, bool) {
	f := h.f
	if !h.declares(q) {
		return varType{}, false
	}
	for s := scope; s > 0 && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		defs := h.scoped[scopedName{s, q}]
		if len(defs) == 0 {
			continue // Go looks among no owner's members (inScope)
		}
		var vt varType
		for k, i := range defs {
			d := f.Defs[i]
			if d.Kind != analysis.KindParameter && d.Kind != analysis.KindVariable || !DeclaredInBody(f, i) ||
				d.NameSpan.Start > at || d.FullSpan.Contains(at) {
				return varType{}, false
			}
			spelling := typeSpelling(d)
			if spelling == "" && len(defs) == 1 && depth < maxChain {
				return h.chainType(d, depth)
			}
			t, qual := baseTypeName(spelling), typeQualifier(spelling)
			if e := strings.TrimLeft(elemType(spelling), "*"); t == "" && depth > 0 && len(defs) == 1 && isName(e) {
				// A chain's root may be a slice or map: its steps start
				// with an element, of a type written by name.
				t, qual = baseTypeName(e), typeQualifier(e)
			}
			if t == "" || k > 0 && t != vt.name {
				return varType{}, false
			}
			vt.mixed = vt.mixed || k > 0 && qual != vt.qual
			vt.name, vt.qual = t, qual
			if len(defs) == 1 {
				vt.written = strings.TrimLeft(spelling, "*&")
			}
		}
		// A value of a type parameter has its constraint's members. A
		// qualified type is never one (a file's type parameter T kept
		// every t.Fatalf of testing.T's from its hint).
		return vt, vt.qual != "" || !h.typeParams[vt.name]
	}
	return varType{}, false
}

// chainType is the type of a variable whose value is a chain of steps from
// a typed variable, `x := b.Controls[i]` with b a *Block: the resolver
// types b as qualifierType does, from the variable's own place, then takes
// each step (a field or method, a call's result, an element) in the
// declarations of the types along the way, which do not depend on the
// file. So x's type is b's, with the steps in its chain: every x.Pos so
// typed, in one folder, resolves alike.
func (h *fileHinter) chainType(d analysis.Def, depth int) (varType, bool) {
	root, steps, ok := valueChain(d.Value)
	if !ok || root == d.Name {
		return varType{}, false
	}
	return h.chainFrom(root, steps, d.Scope, d.NameSpan.Start, depth)
}

// chainFrom is the type of steps taken from root, a name looked up from
// scope at the offset at: a typed variable (see chainType) or, when the
// file declares nothing so named, an import (`time.Now().Add`, `x :=
// time.Now()`), which the resolver follows as a settled selector's, or a
// declaration of the package's other files; or "new(T", for new(T).
func (h *fileHinter) chainFrom(root, steps string, scope int32, at, depth int) (varType, bool) {
	if written, ok := strings.CutPrefix(root, "new("); ok {
		// new(T).M(): T is written where the expression is.
		t := varType{name: baseTypeName(written), qual: typeQualifier(written), chain: written + "|" + steps}
		return t, strings.HasPrefix(steps, ".") && isName(strings.TrimLeft(written, "*")) && (t.qual != "" || !h.typeParams[t.name])
	}
	if !h.declares(root) {
		if h.imports(root) {
			member, _, _ := strings.Cut(strings.TrimPrefix(steps, "."), "(")
			if !strings.HasPrefix(steps, ".") || !isName(member) || strings.ContainsAny(member, ".[") {
				return varType{}, false
			}
			// The package's member stands for the type; typeSettles
			// finds the import by its name, and a group checks the
			// member is the package's (typedSettlesAs).
			return varType{name: member, qual: root, pkgRoot: true, chain: "package|" + steps}, true
		}
		if GoPredeclared(root) {
			return varType{}, false // make(), len(): their arguments are not kept
		}
		// Another file's declaration of the package (`NewQueue()`), found
		// alike from every file of the folder that bareSettles vouches for.
		return varType{name: root, chain: "package-level|" + steps}, true
	}
	t, ok := h.nameType(root, scope, at, depth+1)
	if !ok || t.mixed {
		return varType{}, false
	}
	if t.chain == "" {
		// Written: its spelling, type arguments and all, starts the chain.
		if t.chain = t.written; t.chain == "" {
			return varType{}, false
		}
	}
	t.chain += "|" + steps
	return t, true
}

// typeSpelling is a variable's type as its declaration spells it, the
// way the resolver reads it: its written type, or else the type its value
// asserts, constructs or allocates; "" when neither says.
func typeSpelling(d analysis.Def) string {
	if d.TypeName != "" {
		if analysis.GoStructLiteral(d.TypeName) {
			return ""
		}
		return d.TypeName
	}
	v := d.Value
	if v == "" || strings.ContainsAny(v, "#\n") || strings.HasPrefix(v, "(") {
		return ""
	}
	if name, ok := strings.CutSuffix(strings.TrimPrefix(v, "&"), "{}"); ok {
		if !isName(strings.SplitN(name, "[", 2)[0]) {
			return ""
		}
		return name
	}
	if !strings.HasSuffix(v, ")") || strings.HasPrefix(v, "*") || strings.HasPrefix(v, "&") {
		return ""
	}
	open := matching(v, len(v)-1)
	if open <= 0 {
		return ""
	}
	inner := v[open+1 : len(v)-1]
	if base := v[:open]; base == "new" || strings.HasSuffix(base, ".") && isName(strings.TrimSuffix(base, ".")) {
		if strings.HasPrefix(strings.TrimLeft(inner, "*"), "struct") || inner == "type" {
			return ""
		}
		return inner
	}
	return ""
}

// inTypeDecl reports whether a definition, or one around it, is a type
// declared as another type (KindTypeAlias).
func (h *fileHinter) inTypeDecl(d int32) bool {
	for ; d != analysis.None && int(d) < len(h.f.Defs); d = h.f.Defs[d].Container {
		if h.f.Defs[d].Kind == analysis.KindTypeAlias {
			return true
		}
	}
	return false
}

// hintedMember is ReferenceCandidates' certain list for a Go field or
// method: pruned by folder (goReachers), then by the typed selectors'
// hints. ok is false when the workspace keeps no hints or which types may
// carry the member cannot be told.
func (r *Resolver) hintedMember(def DefID, f *analysis.FileFacts) ([]RefID, bool) {
	h, ok := r.ws.(RefHinter)
	if !ok || f.Lang != "go" {
		return nil, false
	}
	carriers, ok := r.memberCarriers(h, f, def)
	if !ok {
		return nil, false
	}
	refs, reach := r.hintedReachers(h, def, f)
	var out []RefID
	for _, ref := range refs {
		if reach != nil && !reach[filepath.Dir(ref.Path)] {
			continue
		}
		switch ref.Hint & (1<<hintKindBits - 1) {
		case hintTyped:
			if ref.Hint&hintChain == 0 && !carriers[ref.Hint>>hintTypeShift&(1<<hintTypeBits-1)] {
				continue // a member of a type that cannot carry def
			}
		case hintBare:
			// Named bare, a Go field or method is never found: Go looks
			// through no scope's owner (inScope), a call Run() is a
			// function's, and a literal's keys are qualified by its type
			// (T{Pos: 1}).
			continue
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// declaredAs reports whether a type declared as typeName may have the
// members of the types named s, as goUnderlying looks them up: through
// the type that typeName's base name names (`B`, `*p.B`, `B[int]`) or,
// for a union, through its arms. A type that merely mentions s
// (`func(F)`, `[]F`, `map[K]F`) has none of its members: testing.F's Add
// collected over 50 such types by name before, past maxCarriers, and no
// candidate of Add was set aside.
func declaredAs(typeName, s string) bool {
	if strings.Contains(typeName, "|") {
		return strings.Contains(typeName, s)
	}
	return baseTypeName(typeName) == s
}

// A typed selector settles (hintSettled) when its type does not depend on
// its file beyond its folder: a type of the file's own package, or one
// that the file's one import so named qualifies, as a settled selector's
// import. Every x.Name of one folder, role and type then resolves alike
// (see typedSettlesAs): t.Fatalf over thousands of test files is one
// resolution a folder, and fewer once the type's import settles it
// everywhere. Its hint's upper half holds the type's import (its index +
// 1, 0 for its own package's) and a second hash of its name, so that two
// types sharing a group are as unlikely as two files sharing a content
// hash (38 bits of name with typeHash).
const (
	hintTypeImpShift = 32
	hintTypeImpBits  = 10
	hintTypeIDShift  = hintTypeImpShift + hintTypeImpBits
	hintTypeIDBits   = 64 - hintTypeIDShift
)

// typeID is a type name's second hash, beside typeHash.
func typeID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() >> (64 - hintTypeIDBits)
}

// typeSettles returns the import a typed selector's type is qualified by
// (its index + 1, or 0 for a type of the file's package), when that type
// resolves as in every file of the folder: for a type of the package,
// nothing so named imported or declared in the file and no dot import
// (see bareSettles); for a qualified one, the qualifier declared nowhere
// in the file, naming one import by its path's last element, and
// lower-case if the file has a dot import.
func (h *fileHinter) typeSettles(t varType) (int, bool) {
	if t.mixed {
		return 0, false
	}
	if t.qual == "" {
		// A file declaring the type finds it in its own scope, with
		// another confidence than the package's other files.
		return 0, h.bareSettles(t.name)
	}
	// A dot import brings in exported names only (goDotImported).
	if h.dot >= 0 && exported(t.qual) || h.declares(t.qual) {
		return 0, false
	}
	k := -1
	for i, imp := range h.f.Imports {
		if t.qual != imp.Path && t.qual != goImportName(imp) {
			continue
		}
		if k >= 0 {
			return 0, false
		}
		k = i
	}
	if k < 0 || k+1 >= 1<<hintTypeImpBits {
		return 0, false
	}
	imp := h.f.Imports[k]
	if imp.Alias != "" || imp.Wildcard || imp.Name != path.Base(imp.Path) || strings.HasPrefix(imp.Path, ".") || t.qual != goImportName(imp) {
		return 0, false
	}
	return k + 1, true
}

// typedSettled reports whether a hint is a settled typed selector's, and
// returns its type's identity in its group's key (never 0).
func typedSettled(hint uint64) (uint64, bool) {
	if hint&(1<<hintKindBits-1) != hintTyped || hint&hintSettled == 0 {
		return 0, false
	}
	return hint>>hintTypeShift&(1<<hintTypeBits-1) | hint>>hintTypeIDShift<<hintTypeBits | 1<<63, true
}

// valueChain splits a variable's value as extraction writes it (see
// golang.valueExpr), or a qualifier as written, into a name and the steps
// after it, when it is a chain from that name: fields, methods, calls and
// elements, and last maybe a call's other result "#1" (`b.Controls[]`,
// `n.Type().Elem()#1`, `v_0`, `p.Args[i]`). The steps come back with
// their arguments and indexes dropped, which the resolver does not read.
// Anything else (an assertion, a literal, a generic call) is not a chain.
func valueChain(v string) (root, steps string, ok bool) {
	end := 0
	for end < len(v) && isWordByte(v[end]) {
		end++
	}
	root = v[:end]
	if root == "new" && strings.HasPrefix(v[end:], "(") {
		// new(T), a root typed as written: "new(T" stands for it.
		if end = MatchingForward(v, end); end < 0 {
			return "", "", false
		}
		root, end = v[:end], end+1
	} else if !isName(root) {
		return "", "", false
	}
	var b strings.Builder
	for s := v[end:]; s != ""; {
		switch c := s[0]; {
		case c == '(' || c == '[':
			closing := byte(')')
			if c == '[' {
				closing = ']'
			}
			close := MatchingForward(s, 0)
			if close < 0 || s[close] != closing || strings.ContainsAny(s[1:close], "\"'`") ||
				c == '[' && strings.HasPrefix(s[close+1:], "(") { // a generic function's call
				return "", "", false
			}
			b.WriteByte(c)
			b.WriteByte(closing)
			s = s[close+1:]
		case c == '.':
			n := 1
			for n < len(s) && isWordByte(s[n]) {
				n++
			}
			if !isName(s[1:n]) {
				return "", "", false
			}
			b.WriteString(s[:n])
			s = s[n:]
		case c == '#' && strings.HasSuffix(b.String(), "()") && len(s) > 1 && allDigits(s[1:]):
			b.WriteString(s)
			s = ""
		default:
			return "", "", false
		}
	}
	return root, b.String(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
