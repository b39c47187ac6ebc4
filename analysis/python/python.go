// Package python extracts facts from Python sources.
package python

import (
	"context"
	"strings"

	"github.com/smacker/go-tree-sitter/python"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Python grammar.
var Syntax = syntax.NewLanguage("python", python.GetLanguage())

// Extensions are the file extensions of Python sources.
var Extensions = []string{".py", ".pyi"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Python tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b, declared: map[scopedName]bool{}}
	w.children(root)
}

type walker struct {
	b       *extract.Builder
	classes []class // enclosing classes, innermost last
	// globals are the names declared `global` or `nonlocal` in the current
	// function: assigning them writes the outer binding.
	globals map[string]bool
	inType  bool // inside a type annotation
	// declared holds the names bound in each scope (by scope index) and
	// each class (by def index), so rebinding a name is a write.
	declared map[scopedName]bool
	// value is the chain the variable the next target declares is
	// assigned ("prep()"): the resolver infers its type from what the
	// callee is annotated to return.
	value string
	// kind, when known, is what the assignment being walked declares
	// (a TypeVar, a type alias) instead of a variable.
	kind analysis.Kind
}

type scopedName struct {
	scope int32
	name  string
}

type class struct {
	def   int32
	scope int32
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

func (w *walker) node(n syntax.Node) {
	switch n.Type() {
	case "import_statement", "import_from_statement", "future_import_statement":
		w.importStatement(n)
	case "class_definition":
		w.class(n)
	case "function_definition":
		w.function(n)
	case "decorator":
		if f := n.NamedChildren(); len(f) == 1 && f[0].Type() == "identifier" {
			w.b.Call(f[0], "")
		} else {
			w.children(n)
		}
	case "if_statement":
		w.ifStatement(n)
	case "assert_statement":
		w.assertStatement(n)
	case "raise_statement", "return_statement", "continue_statement", "break_statement":
		w.jump(n)
	case "assignment":
		w.assignment(n)
	case "augmented_assignment":
		w.target(n.Field("left"), analysis.RoleRead|analysis.RoleWrite, "")
		w.node(n.Field("right"))
	case "for_statement", "for_in_clause":
		w.node(n.Field("right"))
		w.loopTarget(n.Field("left"), iteratedValue(n.Field("right")))
		for _, c := range n.NamedChildren() {
			if !c.Same(n.Field("left")) && !c.Same(n.Field("right")) {
				w.node(c)
			}
		}
	case "as_pattern_target":
		// `with Session() as s`: s is what the context manager's
		// __enter__ gives, most often the instance itself.
		typeName := ""
		if p := n.Parent(); p.Type() == "as_pattern" && p.Parent().Type() == "with_item" {
			typeName = constructedType(p.NamedChildren()[0])
			if typeName == "" && n.NamedChildren()[0].Type() == "identifier" {
				w.value = callValue(p.NamedChildren()[0])
			}
		}
		w.target(n.NamedChildren()[0], analysis.RoleWrite, typeName)
		w.value = ""
	case "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression":
		// Comprehensions have their own scope; visit the for clauses first so
		// the body sees their variables.
		w.b.Within(n, analysis.None, func() {
			body := n.Field("body")
			for _, c := range n.NamedChildren() {
				if !c.Same(body) {
					w.node(c)
				}
			}
			w.node(body)
		})
	case "lambda":
		w.b.Within(n, analysis.None, func() {
			w.parameters(n.Field("parameters"), analysis.None)
			w.node(n.Field("body"))
		})
	case "conditional_expression", "boolean_operator":
		w.expressionNarrowing(n)
		w.children(n)
	case "global_statement", "nonlocal_statement":
		for _, id := range n.ChildrenOf("identifier") {
			if w.globals != nil {
				w.globals[id.Text()] = true
			}
			w.b.Ref(id, analysis.RoleRead, "")
		}
	case "call":
		w.call(n)
	case "keyword_argument":
		// The keyword names a parameter of the callee, not a name in scope.
		w.node(n.Field("value"))
	case "attribute":
		w.attribute(n, w.role())
	case "type":
		inType := w.inType
		w.inType = true
		w.children(n)
		w.inType = inType
	case "identifier":
		w.b.Ref(n, w.role(), "")
	case "comment", "string_start", "string_content", "string_end", "escape_sequence":
	default:
		w.children(n)
	}
}

func (w *walker) role() analysis.Role {
	if w.inType {
		return analysis.RoleType
	}
	return analysis.RoleRead
}

func (w *walker) importStatement(n syntax.Node) {
	module := ""
	if m := n.Field("module_name"); m.Valid() {
		module = m.Text()
	} else if n.Type() == "future_import_statement" {
		module = "__future__" // the grammar names no module field here
	}
	if n.Child("wildcard_import").Valid() {
		w.b.Import(analysis.Import{Path: module, Wildcard: true, Span: n.Span()}, syntax.Node{})
		return
	}
	for _, c := range n.NamedChildren() {
		if c.Same(n.Field("module_name")) {
			continue
		}
		name, alias := c, syntax.Node{}
		if c.Type() == "aliased_import" {
			name, alias = c.Field("name"), c.Field("alias")
		}
		if name.Type() != "dotted_name" {
			continue
		}
		ids := name.ChildrenOf("identifier")
		last := ids[len(ids)-1]
		path := name.Text()
		switch {
		case strings.HasSuffix(module, "."): // from . import x
			path = module + path
		case module != "":
			path = module + "." + path
		}
		w.b.Import(analysis.Import{Path: path, Name: last.Text(), Alias: alias.Text(), Span: n.Span()}, last)
	}
}

func (w *walker) class(n syntax.Node) {
	name := n.Field("name")
	d := w.b.Def(analysis.KindClass, name, n)
	body := n.Field("body")
	w.decorate(d, n, body)
	for _, s := range n.Field("superclasses").NamedChildren() {
		if s.Type() == "subscript" && isDotted(s.Field("value")) {
			// MutableMapping[str, Any]: the class derives from MutableMapping.
			for _, arg := range s.NamedChildren()[1:] {
				w.node(arg)
			}
			s = s.Field("value")
		}
		switch s.Type() {
		case "identifier":
			w.b.Supertype(d, s, "")
		case "attribute":
			w.node(s.Field("object"))
			w.b.Supertype(d, s.Field("attribute"), s.Field("object").Text())
		default:
			w.node(s)
		}
	}
	w.simpleEnumBase(d, n)
	w.b.Within(n, d, func() {
		w.classes = append(w.classes, class{def: d, scope: w.b.Scope()})
		w.node(n.Field("type_parameters"))
		w.node(body)
		w.classes = w.classes[:len(w.classes)-1]
	})
}

func (w *walker) function(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindFunction
	cls := analysis.None
	if owner := w.b.OwnerDef(); owner != nil && owner.Kind == analysis.KindClass {
		kind = analysis.KindMethod
		cls = w.b.Owner()
	}
	d := w.b.Def(kind, name, n)
	body := n.Field("body")
	w.decorate(d, n, body)
	w.b.D(d).TypeName = strings.TrimSpace(n.Field("return_type").Text())
	if w.b.D(d).TypeName == "" {
		className := ""
		if cls != analysis.None {
			className = w.b.D(cls).Name
		}
		w.b.D(d).TypeName = returnedType(n, className)
	}
	w.b.D(d).Value = decoratedValue(n)
	// self or cls is an instance of the class, except in static methods.
	if p := n.Parent(); p.Type() == "decorated_definition" {
		for _, dec := range p.ChildrenOf("decorator") {
			if dec.Text() == "@staticmethod" {
				cls = analysis.None
			}
		}
	}
	globals := w.globals
	w.globals = map[string]bool{}
	w.b.Within(n, d, func() {
		w.parameters(n.Field("parameters"), cls)
		w.node(n.Field("return_type"))
		w.node(body)
	})
	w.globals = globals
}

// parameters declares a parameter list; the first parameter of a method
// gets the class as its type.
func (w *walker) parameters(list syntax.Node, cls int32) {
	for i, p := range list.NamedChildren() {
		name := p
		switch p.Type() {
		case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
			name = p.Child("identifier")
			if splat := p.Child("dictionary_splat_pattern"); !name.Valid() && splat.Valid() {
				name = splat.Child("identifier") // **kwargs: Unpack[Options]
			} else if splat := p.Child("list_splat_pattern"); !name.Valid() && splat.Valid() {
				name = splat.Child("identifier")
			}
		case "default_parameter", "typed_default_parameter":
			name = p.Field("name")
		}
		if name.Type() != "identifier" {
			w.node(p)
			continue
		}
		d := w.b.Def(analysis.KindParameter, name, p)
		w.declared[scopedName{w.b.Scope(), name.Text()}] = true
		w.b.D(d).TypeName = strings.TrimSpace(p.Field("type").Text())
		switch {
		case p.Type() == "list_splat_pattern" || p.Child("list_splat_pattern").Valid():
			w.b.D(d).TypeName = "tuple" // *args: int is a tuple of ints
		case p.Type() == "dictionary_splat_pattern" || p.Child("dictionary_splat_pattern").Valid():
			w.b.D(d).TypeName = "dict"
		}
		if i == 0 && cls != analysis.None {
			w.b.D(d).TypeName = w.b.D(cls).Name
		}
		w.node(p.Field("type"))
		w.node(p.Field("value"))
	}
}

func (w *walker) assignment(n syntax.Node) {
	right := n.Field("right")
	w.node(right)
	w.node(n.Field("type"))
	left := n.Field("left")
	typeName := strings.TrimSpace(n.Field("type").Text())
	if typeName == "" {
		typeName = constructedType(right)
	}
	kind := typeDeclKind(typeName, right)
	if kind != analysis.KindUnknown {
		typeName = "" // TypeVar("T") is no instance of a class T's users know
		if kind == analysis.KindTypeAlias {
			typeName = aliasedType(right)
		}
	}
	if typeName == "" && left.Type() == "identifier" {
		w.value = callValue(right)
		// `d = hooks or {}` with `hooks: Mapping[…] | None`: the
		// parameter's type comes first, as pyright lists the union.
		if right.Type() == "boolean_operator" && right.Child("or").Valid() && right.Field("left").Type() == "identifier" {
			if typeName = w.parameterType(right.Field("left").Text()); typeName != "" {
				w.value = ""
			}
		}
	}
	if typeName == "" && left.Type() == "attribute" && left.Field("object").Text() == "self" && right.Type() == "identifier" {
		typeName = w.parameterType(right.Text()) // self.app = app, with app: Flask
	}
	if typeName == "" && left.Type() == "attribute" && left.Field("object").Text() == "self" {
		// self.config = self.make_config(): the field is read from the
		// class, where the method's own names are not seen.
		if v := callValue(right); chainHead(v) == "self" || !w.declaredHere(chainHead(v)) {
			w.value = v
		}
	}
	w.kind = kind
	w.target(left, analysis.RoleWrite, typeName)
	w.value, w.kind = "", analysis.KindUnknown
}

// typeDeclKind is the kind of what an assignment declares when it is a
// type: `T = TypeVar("T")` a type parameter, `Id = NewType("Id", int)` a
// class, `X: TypeAlias = …` an alias; KindUnknown for other values.
func typeDeclKind(annotation string, value syntax.Node) analysis.Kind {
	if annotation == "TypeAlias" || strings.HasSuffix(annotation, ".TypeAlias") {
		return analysis.KindTypeAlias
	}
	if value.Type() != "call" {
		return analysis.KindUnknown
	}
	callee := value.Field("function").Text()
	switch callee[strings.LastIndexByte(callee, '.')+1:] {
	case "TypeVar", "ParamSpec", "TypeVarTuple":
		return analysis.KindTypeParameter
	case "NewType", "NamedTuple", "TypedDict":
		return analysis.KindClass
	}
	return analysis.KindUnknown
}

// aliasedType is the type a `X: TypeAlias = …` stands for, on one line
// (a forward reference without its quotes): a value typed X has its
// members.
func aliasedType(value syntax.Node) string {
	text := strings.Join(strings.Fields(value.Text()), " ")
	if value.Type() == "string" {
		text = strings.Trim(text, `"'`)
	}
	return text
}

// target declares or writes the names an assignment, loop or `as` binds.
func (w *walker) target(t syntax.Node, role analysis.Role, typeName string) {
	switch t.Type() {
	case "identifier":
		name := t.Text()
		if role&analysis.RoleRead != 0 || w.globals[name] || w.declaredHere(name) {
			w.b.Ref(t, role, "")
			return
		}
		kind := analysis.KindVariable
		owner := w.b.OwnerDef()
		switch {
		case w.kind != analysis.KindUnknown && t.Parent().Type() == "assignment":
			kind = w.kind
		case owner != nil && owner.Kind == analysis.KindClass:
			kind = analysis.KindField
		case owner == nil && strings.ToUpper(name) == name:
			kind = analysis.KindConstant
		}
		// A loop's variable spans itself, not the loop: its body sees it.
		full := t.Parent()
		if full.Type() == "for_statement" || full.Type() == "for_in_clause" {
			full = t
		}
		d := w.b.Def(kind, t, full)
		w.declared[scopedName{w.b.Scope(), name}] = true
		w.b.D(d).TypeName = typeName
		w.b.D(d).Value = w.value
		if owner == nil || owner.Kind == analysis.KindClass {
			w.b.D(d).Visibility = visibility(name)
			w.b.D(d).Signature = extract.Header(full, syntax.Node{})
		}
	case "attribute":
		if obj := t.Field("object"); obj.Text() == "self" && len(w.classes) > 0 && role == analysis.RoleWrite {
			w.selfField(t, typeName)
			return
		}
		w.attribute(t, role)
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list":
		for _, c := range t.NamedChildren() {
			w.target(c, role, "")
		}
	case "list_splat_pattern":
		w.target(t.NamedChildren()[0], role, "")
	default:
		w.node(t)
	}
}

// selfField declares `self.x = ...` as a field of the enclosing class the
// first time, and records a write afterwards.
func (w *walker) selfField(t syntax.Node, typeName string) {
	attr := t.Field("attribute")
	w.node(t.Field("object"))
	cls := w.classes[len(w.classes)-1]
	if w.declared[scopedName{cls.scope, attr.Text()}] {
		w.b.Ref(attr, analysis.RoleWrite, "self")
		return
	}
	w.declared[scopedName{cls.scope, attr.Text()}] = true
	d := w.b.Def(analysis.KindField, attr, t.Parent())
	def := w.b.D(d)
	def.Container, def.Scope = cls.def, cls.scope
	def.TypeName = typeName
	def.Value = w.value
	def.Visibility = visibility(attr.Text())
}

// parameterType is the annotation of the parameter called name of the
// function being walked, or "".
func (w *walker) parameterType(name string) string {
	defs := w.b.Facts.Defs
	for i := len(defs) - 1; i >= 0; i-- {
		if d := defs[i]; d.Kind == analysis.KindParameter && d.Name == name && d.Scope == w.b.Scope() {
			return d.TypeName
		}
	}
	return ""
}

// simpleEnumBase records the enum class a standard library class is made
// with, `@_simple_enum(IntEnum) class HTTPStatus:`, as its base: what the
// decorator makes it, and how typeshed declares it.
func (w *walker) simpleEnumBase(d int32, class syntax.Node) {
	p := class.Parent()
	if p.Type() != "decorated_definition" {
		return
	}
	for _, dec := range p.ChildrenOf("decorator") {
		call := firstNamed(dec)
		if call.Type() != "call" || !strings.HasSuffix(call.Field("function").Text(), "_simple_enum") {
			continue
		}
		if args := call.Field("arguments").NamedChildren(); len(args) > 0 && args[0].Type() == "identifier" {
			w.b.Facts.Supertypes = append(w.b.Facts.Supertypes, analysis.Supertype{Def: d, Name: args[0].Text(), Span: args[0].Span()})
		}
	}
}

func (w *walker) declaredHere(name string) bool {
	return w.declared[scopedName{w.b.Scope(), name}]
}

func (w *walker) call(n syntax.Node) {
	switch f := n.Field("function"); f.Type() {
	case "identifier":
		w.b.Call(f, "")
	case "attribute":
		w.attribute(f, analysis.RoleCall)
	default:
		w.node(f)
	}
	w.node(n.Field("arguments"))
}

func (w *walker) attribute(n syntax.Node, role analysis.Role) {
	obj := n.Field("object")
	w.node(obj)
	qualifier := extract.Qualifier(obj)
	if role == analysis.RoleCall {
		w.b.Call(n.Field("attribute"), qualifier)
	} else {
		w.b.Ref(n.Field("attribute"), role, qualifier)
	}
}

// decorate fills signature, docstring (or the comment above) and visibility.
func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	def.Visibility = visibility(def.Name)
	if first := body.Child("expression_statement"); first.Valid() && first.Start() == body.NamedChildren()[0].Start() {
		if s := first.NamedChildren(); len(s) == 1 && s[0].Type() == "string" {
			def.Doc = strings.TrimSpace(s[0].Child("string_content").Text())
			return
		}
	}
	at := decl
	if p := decl.Parent(); p.Type() == "decorated_definition" {
		at = p
	}
	def.Doc = w.b.Doc(at, extract.HashStyle)
}

func visibility(name string) string {
	if strings.HasPrefix(name, "_") && !strings.HasSuffix(name, "__") {
		return "private"
	}
	return "public"
}

// constructedType infers `Foo` from `Foo(...)` and `mod.Foo` from
// `mod.Foo(...)`, keeping the module so the resolver looks there: by
// convention only classes start with an upper-case letter.
func constructedType(v syntax.Node) string {
	if v.Type() != "call" {
		return ""
	}
	f := v.Field("function")
	name := f.Text()
	if f.Type() == "attribute" {
		name = f.Field("attribute").Text()
	}
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	if f.Type() == "attribute" && isDotted(f.Field("object")) {
		return f.Text()
	}
	return name
}

// isDotted reports whether n is a name or a chain of attribute names.
func isDotted(n syntax.Node) bool {
	switch n.Type() {
	case "identifier":
		return true
	case "attribute":
		return isDotted(n.Field("object"))
	}
	return false
}

// decoratedValue is what a function's name is bound to when its outermost
// decorator is a call of a dotted name, as a chain the resolver follows:
// `@cli.command()` binds what calling cli.command()'s result returns,
// "cli.command()()". "" otherwise.
func decoratedValue(fn syntax.Node) string {
	p := fn.Parent()
	if p.Type() != "decorated_definition" {
		return ""
	}
	decs := p.ChildrenOf("decorator")
	if len(decs) == 0 {
		return ""
	}
	if v := callValue(firstNamed(decs[0])); strings.HasSuffix(v, "()") {
		return v + "()"
	}
	return ""
}

func firstNamed(n syntax.Node) syntax.Node {
	if kids := n.NamedChildren(); len(kids) > 0 {
		return kids[0]
	}
	return syntax.Node{}
}
