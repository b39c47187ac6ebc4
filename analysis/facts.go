// Package analysis holds the language-neutral facts that extraction produces from
// one file and that the index, the resolver and every feature consume. Nothing
// here refers to tree-sitter: a file's tree is turned into these structs and
// dropped.
package analysis

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Point is a 0-based line and a 0-based UTF-8 byte column.
type Point struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Span is the byte range [Start, End) of a file with its start and end points.
type Span struct {
	Start      int   `json:"start"`
	End        int   `json:"end"`
	StartPoint Point `json:"startPoint"`
	EndPoint   Point `json:"endPoint"`
}

// Contains reports whether offset lies inside the span (end exclusive).
func (s Span) Contains(offset int) bool { return s.Start <= offset && offset < s.End }

// Kind classifies a definition.
type Kind uint8

const (
	KindUnknown Kind = iota
	KindPackage
	KindModule
	KindClass
	KindInterface
	KindObject
	KindEnum
	KindEnumEntry
	KindStruct
	KindTrait
	KindTypeAlias
	KindFunction
	KindMethod
	KindConstructor
	KindProperty
	KindField
	KindVariable
	KindConstant
	KindParameter
	KindTypeParameter
	KindLambda
)

var kindNames = [...]string{"unknown", "package", "module", "class", "interface", "object", "enum",
	"enumEntry", "struct", "trait", "typeAlias", "function", "method", "constructor", "property",
	"field", "variable", "constant", "parameter", "typeParameter", "lambda"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// IsSymbol reports whether definitions of this kind are listed as symbols
// (outlines, workspace symbol searches): parameters, type parameters and
// lambdas are noise there.
func (k Kind) IsSymbol() bool {
	switch k {
	case KindParameter, KindTypeParameter, KindLambda:
		return false
	}
	return true
}

// IsType reports whether definitions of this kind name a type.
func (k Kind) IsType() bool {
	switch k {
	case KindClass, KindInterface, KindObject, KindEnum, KindStruct, KindTrait, KindTypeAlias:
		return true
	}
	return false
}

// Role is a bit set describing how a reference uses its name.
type Role uint8

const (
	RoleRead Role = 1 << iota
	RoleWrite
	RoleCall
	RoleType
	RoleImport
	RoleInheritance
)

// None is the index value meaning "no such def/scope".
const None int32 = -1

// Def is one declaration in a file.
type Def struct {
	Name       string `json:"name"`
	Kind       Kind   `json:"kind"`
	NameSpan   Span   `json:"nameSpan"`
	FullSpan   Span   `json:"fullSpan"`
	Container  int32  `json:"container"` // index into FileFacts.Defs, or None
	Scope      int32  `json:"scope"`     // index into FileFacts.Scopes where the name is declared
	Visibility string `json:"visibility,omitempty"`
	Signature  string `json:"signature,omitempty"`
	Doc        string `json:"doc,omitempty"`
	// TypeName is the declared or inferred type of a property, field, variable or
	// parameter, or the return type of a function, as written ("List<String>").
	TypeName string `json:"typeName,omitempty"`
	// Receiver is the receiver type of a method, Go method or extension function.
	Receiver string `json:"receiver,omitempty"`
	// Value is, for a variable declared without a written type, its value as
	// a chain the resolver can follow to infer the variable's type: calls
	// with their arguments dropped ("exec.Command()"), selectors
	// ("s.Func().Text"), "&x", "new(T)", "x.(*T)", "x[]" for an element, and
	// "f()#1" for the second of several results.
	Value string `json:"value,omitempty"`
}

// Ref is one use of a name.
type Ref struct {
	Name      string `json:"name"`
	Span      Span   `json:"span"`
	Role      Role   `json:"role"`
	Scope     int32  `json:"scope"`     // innermost scope containing the reference
	Enclosing int32  `json:"enclosing"` // innermost enclosing def, or None
	// Qualifier is the text before the dot for `a.b` ("a", "this", "self",
	// "pkg"), empty for a bare name.
	Qualifier string `json:"qualifier,omitempty"`
	// Args is, for a call, the shape of its arguments, which tells overloads
	// apart: "(" then one code per argument, comma-separated, then ")".
	// A code is an optional "name=" for a named argument, then s (string
	// literal), i (integer), L (long), d (floating point), b (boolean),
	// c (character), n (null), f (lambda or function reference), * (spread),
	// $expr (a variable, property chain or call, whose type the resolver
	// may know), t:Type (a class literal's type) or _ (anything else); a
	// trailing lambda is the code ^. TypeScript adds a (an array literal),
	// o (an object literal) and p (a function whose written result is a
	// type predicate), and writes a number as i and undefined as n. Empty when
	// the reference is not a call or its arguments are unknown.
	Args string `json:"args,omitempty"`
}

// Scope is a lexical region that can declare names.
type Scope struct {
	Span   Span  `json:"span"`
	Parent int32 `json:"parent"` // index into FileFacts.Scopes, or None for the file scope
	Def    int32 `json:"def"`    // the def that owns this scope (function, class), or None
}

// Import is one import or use declaration.
type Import struct {
	Path     string `json:"path"`            // full imported path ("sample.greet", "fmt", "os.path")
	Name     string `json:"name,omitempty"`  // the last segment, the name it brings in
	Alias    string `json:"alias,omitempty"` // `import a.b as c` → "c"
	Wildcard bool   `json:"wildcard,omitempty"`
	Span     Span   `json:"span"`
}

// RustMacroUse is the alias of the import a `#[macro_use] extern crate x`
// records: it binds no name, and brings x's exported macros into scope in
// the whole crate.
const RustMacroUse = "#[macro_use]"

// Call is a call edge from the enclosing definition to a callee name.
type Call struct {
	Caller int32  `json:"caller"` // index into Defs, or None at top level
	Callee string `json:"callee"`
	Site   Span   `json:"site"` // the callee name's span at the call site
	Ref    int32  `json:"ref"`  // index into Refs of the call reference
}

// Supertype is an inheritance edge from a type definition to a named supertype.
type Supertype struct {
	Def  int32  `json:"def"`
	Name string `json:"name"`
	Span Span   `json:"span"`
}

// Cast is a smart cast: inside Span, the variable, parameter or property
// called Name is known to be a Type (`if (x is Type) { … }`, a `when`
// branch `is Type ->`, the rest of a block after `if (x !is Type) return`).
// A `!= null` check needs none: resolution reads types without their `?`.
type Cast struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Span Span   `json:"span"`
}

// InKeyPrefix starts the Type of a TypeScript Cast that proves a key rather
// than a type: `"message" in v` gives v the Type "in:message" where it
// holds, which completion lists among v's members and typing ignores.
const InKeyPrefix = "in:"

// IndexSignatureName is the Name of a TypeScript index signature's
// declaration, `[key: string]: T` (its NameSpan is key's): the member that
// every property read of its type without a member of its own reaches.
const IndexSignatureName = "[]"

// PredicatePrefix starts the Type of a TypeScript Cast that a call proves
// where it holds, "is:callee#i" for `callee(x)` with x its i-th argument:
// the type the callee's written result `p is T` gives its parameter p.
const PredicatePrefix = "is:"

// SyntaxError is a parse error worth reporting as a diagnostic.
type SyntaxError struct {
	Span    Span   `json:"span"`
	Message string `json:"message"`
}

// FileFacts is everything extraction knows about one file's content.
type FileFacts struct {
	Path    string `json:"path"`
	Lang    string `json:"lang"`
	Package string `json:"package,omitempty"`
	Hash    string `json:"hash"` // lowercase hex SHA-256 of the bytes
	Size    int    `json:"size"`
	Lines   int    `json:"lines"`
	// ASCII is true when every byte is below 0x80: columns in UTF-16 code
	// units then equal byte columns, so positions convert without the text.
	ASCII bool `json:"ascii,omitempty"`
	// WideLines lists the lines (from 0) that hold a byte of 0x80 or more
	// when the file is not ASCII and they are at most MaxWideLines: the
	// other lines' positions convert without the text too. Most such files
	// have a few (a name in a comment), and reading a large one again for
	// each result was half of a cold start's workspace/symbol CPU.
	WideLines  []int32       `json:"wideLines,omitempty"`
	Defs       []Def         `json:"defs"`
	Refs       []Ref         `json:"refs"`
	Scopes     []Scope       `json:"scopes"`
	Imports    []Import      `json:"imports"`
	Calls      []Call        `json:"calls"`
	Supertypes []Supertype   `json:"supertypes"`
	Errors     []SyntaxError `json:"errors,omitempty"`
	Casts      []Cast        `json:"casts,omitempty"`
}

// MaxWideLines bounds FileFacts.WideLines.
const MaxWideLines = 64

// WideLines lists the lines of b holding a byte of 0x80 or more, nil when
// there are none or more than MaxWideLines.
func WideLines(b []byte) []int32 {
	var out []int32
	line, start := int32(0), 0
	for start < len(b) {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		if !IsASCII(b[start:end]) {
			if len(out) == MaxWideLines {
				return nil
			}
			out = append(out, line)
		}
		line, start = line+1, end+1
	}
	return out
}

// IsASCII reports whether every byte of b is below 0x80.
func IsASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
