package storage

import (
	"reflect"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// declsOf is what a declarations table must hold of f.
func declsOf(f *analysis.FileFacts) *analysis.FileFacts {
	want := &analysis.FileFacts{Path: f.Path, Hash: f.Hash, Lang: f.Lang, Package: f.Package, Size: f.Size, Lines: f.Lines,
		ASCII: f.ASCII, Scopes: f.Scopes, Imports: f.Imports, Supertypes: f.Supertypes}
	for i, d := range f.Defs {
		d.Doc = ""
		if localDecl(f, i) {
			d = analysis.Def{Kind: d.Kind, Container: d.Container, Scope: d.Scope}
		}
		want.Defs = append(want.Defs, d)
	}
	for _, r := range f.Refs {
		if r.Role&analysis.RoleInheritance != 0 {
			want.Refs = append(want.Refs, r)
		}
	}
	return want
}

func TestDeclsRoundTripKeepsWhatResolutionReads(t *testing.T) {
	var f analysis.FileFacts
	seed := 0
	fill(reflect.ValueOf(&f).Elem(), &seed)
	f.Defs[0].Container = analysis.None
	fn := int32(len(f.Defs))
	f.Defs = append(f.Defs, analysis.Def{Name: "F", Kind: analysis.KindFunction, Container: analysis.None},
		analysis.Def{Name: "x", Kind: analysis.KindVariable, Container: fn, Scope: 3, TypeName: "int", Value: "g()"},
		analysis.Def{Name: "p", Kind: analysis.KindParameter, Container: fn, TypeName: "string"},
		analysis.Def{Name: "T", Kind: analysis.KindTypeParameter, Container: fn, TypeName: "any"})
	f.Refs = append(f.Refs, f.Refs[0], f.Refs[0])
	f.Refs[0].Role = analysis.RoleCall
	f.Refs[1].Role = analysis.RoleInheritance
	f.Refs[2].Role = analysis.RoleInheritance | analysis.RoleCall
	f.Refs[2].Name = "Base"
	got, err := decodeDecls(appendDecls(nil, &f))
	if err != nil {
		t.Fatal(err)
	}
	got.Path, got.Hash = f.Path, f.Hash
	if want := declsOf(&f); !reflect.DeepEqual(got, want) || len(got.Refs) != 2 {
		t.Errorf("declarations table:\n got %+v\nwant %+v", got, want)
	}
	if x, p, tp := got.Defs[fn+1], got.Defs[fn+2], got.Defs[fn+3]; x != (analysis.Def{Kind: analysis.KindVariable, Container: fn, Scope: 3}) ||
		p.Name != "p" || p.TypeName != "string" || tp.Name != "T" {
		t.Errorf("a local kept %+v, a parameter %+v, a type parameter %+v", x, p, tp)
	}
	if _, err := decodeDecls(appendDecls(nil, &f)[:20]); err == nil {
		t.Error("truncated table decoded without error")
	}
}

func TestDeclsServedForGoAndWholeFactsElsewhere(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	goFile := fakeFacts("go source", []string{"Shape", "Circle<Shape"}, []string{"area"})
	goFile.Defs[0].Doc = "Shape is a shape."
	mustPut(t, ix, "/w/a.go", goFile)
	py := fakeFacts("python source", []string{"Shape"}, []string{"area"})
	py.Lang = "python"
	mustPut(t, ix, "/w/a.py", py)

	stored, err := ix.Facts("/w/a.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Decls("/w/a.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := declsOf(stored); !reflect.DeepEqual(got, want) {
		t.Errorf("Decls(a.go):\n got %+v\nwant %+v", got, want)
	}
	if got.Defs[0].Doc != "" || len(got.Refs) >= len(stored.Refs) {
		t.Errorf("Decls(a.go) kept docs or every reference: %+v", got)
	}
	whole, err := ix.Facts("/w/a.py")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ix.Decls("/w/a.py"); err != nil || !reflect.DeepEqual(got, whole) {
		t.Errorf("Decls(a.py) = %+v, %v; want the whole facts %+v", got, err, whole)
	}
	if _, err := ix.Decls("/w/missing.go"); err == nil {
		t.Error("Decls of a file not indexed: no error")
	}
}
