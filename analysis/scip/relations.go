package scip

import (
	"slices"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// symbolInfo describes definition i of f: its kind, name, documentation
// (the signature in a code block, then the doc comment, as hovers show
// them) and relationships.
func (e *exporter) symbolInfo(path string, f *analysis.FileFacts, i int32, sym string) *scipb.SymbolInformation {
	d := f.Defs[i]
	id := resolve.DefID{Path: path, Index: i}
	si := &scipb.SymbolInformation{Symbol: sym, Kind: kindOf(d.Kind), DisplayName: d.Name}
	if desc := navigate.Describe(e.snap, id); desc != "" {
		si.Documentation = []string{desc}
	}
	if d.Container >= 0 && int(d.Container) < len(f.Defs) {
		if fs := e.symbols.file(path); fs != nil && !scipb.IsLocalSymbol(sym) {
			si.EnclosingSymbol = fs.symbols[d.Container]
		}
	}
	if scipb.IsLocalSymbol(sym) {
		return si
	}
	seen := map[string]bool{sym: true}
	rel := func(target string, r *scipb.Relationship) {
		if target == "" || seen[target] || scipb.IsLocalSymbol(target) {
			return
		}
		seen[target] = true
		r.Symbol = target
		si.Relationships = append(si.Relationships, r)
	}
	switch {
	case d.Kind.IsType():
		// A class implements or extends its resolved supertypes.
		for _, super := range e.supertypes(id) {
			rel(e.symbols.of(super), &scipb.Relationship{IsImplementation: true})
		}
	case d.Container >= 0 && int(d.Container) < len(f.Defs) && f.Defs[d.Container].Kind.IsType():
		// A member implements (and, for find-references, stands for) the
		// members of the same name its type's supertypes declare.
		for _, super := range e.supertypes(resolve.DefID{Path: path, Index: d.Container}) {
			for _, m := range e.membersNamed(super, d.Name) {
				rel(e.symbols.of(m), &scipb.Relationship{IsImplementation: true, IsReference: true})
			}
		}
	}
	if !d.Kind.IsType() && d.TypeName != "" {
		for _, c := range e.r.TypeOf(id) {
			if !c.Uncertain {
				rel(e.symbols.of(c.Def), &scipb.Relationship{IsTypeDefinition: true})
				break
			}
		}
	}
	return si
}

// supertypes lists the confidently resolved direct supertypes of a type.
func (e *exporter) supertypes(t resolve.DefID) []resolve.DefID {
	var out []resolve.DefID
	for _, edge := range e.r.Supertypes(t) {
		if len(edge.Targets) > 0 && !edge.Targets[0].Uncertain && !slices.Contains(out, edge.Targets[0].Def) {
			out = append(out, edge.Targets[0].Def)
		}
	}
	return out
}

// membersNamed lists the members called name that type t declares.
func (e *exporter) membersNamed(t resolve.DefID, name string) []resolve.DefID {
	g := e.snap.File(t.Path)
	if g == nil {
		return nil
	}
	var out []resolve.DefID
	for j, m := range g.Defs {
		if m.Container == t.Index && m.Name == name {
			out = append(out, resolve.DefID{Path: t.Path, Index: int32(j)})
		}
	}
	return out
}
