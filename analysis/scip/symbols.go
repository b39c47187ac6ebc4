package scip

import (
	"strconv"
	"strings"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// scheme is the first word of every global symbol kast writes.
const scheme = "kast"

// fileSymbols are the SCIP symbols of one file's definitions, by index:
// a global symbol for each definition visible beyond a body, "local N"
// for the others.
type fileSymbols struct {
	pkg     pkg
	symbols []string
}

// symbolTable computes and keeps the symbols of the files it is asked
// about: a reference's target lives in another file.
type symbolTable struct {
	ws    resolve.Workspace
	pkgs  *packages
	files map[string]*fileSymbols
}

func newSymbolTable(ws resolve.Workspace, pkgs *packages) *symbolTable {
	return &symbolTable{ws: ws, pkgs: pkgs, files: map[string]*fileSymbols{}}
}

// of returns the symbol of a definition, or "" when it has none.
func (t *symbolTable) of(def resolve.DefID) string {
	fs := t.file(def.Path)
	if fs == nil || def.Index < 0 || int(def.Index) >= len(fs.symbols) {
		return ""
	}
	return fs.symbols[def.Index]
}

func (t *symbolTable) file(path string) *fileSymbols {
	if fs, ok := t.files[path]; ok {
		return fs
	}
	f := t.ws.File(path)
	var fs *fileSymbols
	if f != nil {
		p := t.pkgs.of(path, f.Lang, f.Package)
		fs = &fileSymbols{pkg: p, symbols: fileDefSymbols(f, p)}
	}
	t.files[path] = fs
	return fs
}

// forget drops the symbols of files already written, bounding memory on
// large workspaces; they are computed again if a later file refers to them.
func (t *symbolTable) forget() {
	if len(t.files) > maxCachedFiles {
		clear(t.files)
	}
}

const maxCachedFiles = 4096

// fileDefSymbols names every definition of f.
func fileDefSymbols(f *analysis.FileFacts, p pkg) []string {
	out := make([]string, len(f.Defs))
	descs := make([][]*scipb.Descriptor, len(f.Defs))
	// Overloads in one container are told apart by their order.
	seen := map[[2]string]int{}
	var chain func(i int32, depth int) []*scipb.Descriptor
	chain = func(i int32, depth int) []*scipb.Descriptor {
		if descs[i] != nil {
			return descs[i]
		}
		d := f.Defs[i]
		var parent []*scipb.Descriptor
		if d.Container >= 0 && int(d.Container) < len(f.Defs) && d.Container != i && depth < maxNesting {
			parent = chain(d.Container, depth+1)
		} else {
			for _, ns := range p.namespaces {
				parent = append(parent, &scipb.Descriptor{Name: ns, Suffix: scipb.Descriptor_Namespace})
			}
			if recv := receiverType(d); recv != "" && f.Lang == "go" {
				parent = append(parent, &scipb.Descriptor{Name: recv, Suffix: scipb.Descriptor_Type})
			}
		}
		own := &scipb.Descriptor{Name: d.Name, Suffix: suffixOf(d.Kind)}
		if own.Suffix == scipb.Descriptor_Method {
			key := [2]string{scipb.VerboseSymbolFormatter.FormatDescriptors(parent), d.Name}
			if n := seen[key]; n > 0 {
				own.Disambiguator = "+" + strconv.Itoa(n)
			}
			seen[key]++
		}
		descs[i] = append(append(make([]*scipb.Descriptor, 0, len(parent)+1), parent...), own)
		return descs[i]
	}
	for i := range f.Defs {
		if f.Defs[i].Name == "" {
			continue
		}
		if resolve.DeclaredInBody(f, int32(i)) {
			out[i] = "local " + strconv.Itoa(i)
			continue
		}
		out[i] = scipb.VerboseSymbolFormatter.FormatSymbol(&scipb.Symbol{
			Scheme:      scheme,
			Package:     &scipb.Package{Manager: p.manager, Name: p.name, Version: p.version},
			Descriptors: chain(int32(i), 0),
		})
	}
	return out
}

// maxNesting bounds container chains, which broken facts could loop.
const maxNesting = 64

// packageSymbol names a Go package: its module and import path.
func packageSymbol(p pkg) string {
	var descs []*scipb.Descriptor
	for _, ns := range p.namespaces {
		descs = append(descs, &scipb.Descriptor{Name: ns, Suffix: scipb.Descriptor_Namespace})
	}
	return scipb.VerboseSymbolFormatter.FormatSymbol(&scipb.Symbol{
		Scheme: scheme, Package: &scipb.Package{Manager: p.manager, Name: p.name, Version: p.version}, Descriptors: descs,
	})
}

// receiverType is the base type a Go method is declared on ("Buffer" for
// "(b *Buffer)" or "*Buffer[T]").
func receiverType(d analysis.Def) string {
	r := strings.TrimSpace(d.Receiver)
	if r == "" {
		return ""
	}
	if fields := strings.Fields(strings.Trim(r, "()")); len(fields) > 0 {
		r = fields[len(fields)-1]
	}
	r = strings.TrimLeft(r, "*")
	if i := strings.IndexByte(r, '['); i >= 0 {
		r = r[:i]
	}
	return r
}

func suffixOf(k analysis.Kind) scipb.Descriptor_Suffix {
	switch k {
	case analysis.KindPackage, analysis.KindModule:
		return scipb.Descriptor_Namespace
	case analysis.KindClass, analysis.KindInterface, analysis.KindObject, analysis.KindEnum, analysis.KindStruct,
		analysis.KindTrait, analysis.KindTypeAlias:
		return scipb.Descriptor_Type
	case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor:
		return scipb.Descriptor_Method
	case analysis.KindParameter:
		return scipb.Descriptor_Parameter
	case analysis.KindTypeParameter:
		return scipb.Descriptor_TypeParameter
	}
	return scipb.Descriptor_Term
}

func kindOf(k analysis.Kind) scipb.SymbolInformation_Kind {
	switch k {
	case analysis.KindPackage:
		return scipb.SymbolInformation_Package
	case analysis.KindModule:
		return scipb.SymbolInformation_Module
	case analysis.KindClass:
		return scipb.SymbolInformation_Class
	case analysis.KindInterface:
		return scipb.SymbolInformation_Interface
	case analysis.KindObject:
		return scipb.SymbolInformation_Object
	case analysis.KindEnum:
		return scipb.SymbolInformation_Enum
	case analysis.KindEnumEntry:
		return scipb.SymbolInformation_EnumMember
	case analysis.KindStruct:
		return scipb.SymbolInformation_Struct
	case analysis.KindTrait:
		return scipb.SymbolInformation_Trait
	case analysis.KindTypeAlias:
		return scipb.SymbolInformation_TypeAlias
	case analysis.KindFunction:
		return scipb.SymbolInformation_Function
	case analysis.KindMethod:
		return scipb.SymbolInformation_Method
	case analysis.KindConstructor:
		return scipb.SymbolInformation_Constructor
	case analysis.KindProperty:
		return scipb.SymbolInformation_Property
	case analysis.KindField:
		return scipb.SymbolInformation_Field
	case analysis.KindVariable:
		return scipb.SymbolInformation_Variable
	case analysis.KindConstant:
		return scipb.SymbolInformation_Constant
	case analysis.KindParameter:
		return scipb.SymbolInformation_Parameter
	case analysis.KindTypeParameter:
		return scipb.SymbolInformation_TypeParameter
	}
	return scipb.SymbolInformation_UnspecifiedKind
}

// language names a kast language as SCIP's Language enum does.
func language(lang string) string {
	switch lang {
	case "go":
		return "Go"
	case "kotlin":
		return "Kotlin"
	case "java":
		return "Java"
	case "python":
		return "Python"
	case "typescript":
		return "TypeScript"
	case "tsx":
		return "TypeScriptReact"
	case "javascript":
		return "JavaScript"
	case "rust":
		return "Rust"
	case "ruby":
		return "Ruby"
	}
	return lang
}
