package naming

import (
	"slices"

	"github.com/kast-dev/kast/analysis"
)

// Kast has two kind vocabularies: the SymbolKind its analysis API answers
// with, and the finer declaration kind of its source index (symbol/query,
// whose enum classes, entries, type aliases and constructors keep their own
// names). Both derive from analysis.Kind here.

// symbolKinds lists Kast's SymbolKind values.
var symbolKinds = []string{"CLASS", "INTERFACE", "OBJECT", "FUNCTION", "PROPERTY", "PARAMETER", "UNKNOWN"}

// Kind is a kind's Kast SymbolKind.
func Kind(k analysis.Kind) string {
	switch k {
	case analysis.KindClass, analysis.KindEnum, analysis.KindStruct, analysis.KindTrait, analysis.KindTypeAlias:
		return "CLASS"
	case analysis.KindInterface:
		return "INTERFACE"
	case analysis.KindObject:
		return "OBJECT"
	case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor:
		return "FUNCTION"
	case analysis.KindProperty, analysis.KindField, analysis.KindVariable, analysis.KindConstant, analysis.KindEnumEntry:
		return "PROPERTY"
	case analysis.KindParameter:
		return "PARAMETER"
	}
	return "UNKNOWN"
}

// IsSymbolKind reports whether s is one of Kast's SymbolKind values.
func IsSymbolKind(s string) bool { return slices.Contains(symbolKinds, s) }

// RequestKind is the SymbolKind a symbol/* request names in lowercase
// ("class" → "CLASS"); "" for a kind requests cannot name.
func RequestKind(lower string) string { return requestKinds[lower] }

var requestKinds = map[string]string{"class": "CLASS", "interface": "INTERFACE", "object": "OBJECT", "function": "FUNCTION", "property": "PROPERTY"}

// IndexKind is a kind's declaration kind in Kast's source index.
func IndexKind(k analysis.Kind) string {
	switch k {
	case analysis.KindEnum:
		return "ENUM_CLASS"
	case analysis.KindEnumEntry:
		return "ENUM_ENTRY"
	case analysis.KindTypeAlias:
		return "TYPEALIAS"
	case analysis.KindConstructor:
		return "CONSTRUCTOR"
	}
	return Kind(k)
}
