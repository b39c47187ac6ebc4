package resolve_test

import (
	"context"
	"testing"

	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
)

// A selector on a variable typed through a chain from a typed parameter
// is settled by its hint, whatever the chain's steps; one whose chain
// starts at a package-level variable (which another file of the package
// may declare with another type) or at a type the file declares (found
// in its own scope, with another confidence) is not.
func TestChainTypedSelectorsHintSettled(t *testing.T) {
	const src = `package ssa

import "example.com/m/obj"

var global *Block

func steps(b *Block, vs []*Value, p *obj.Prog, m map[string]*Value) {
	x := b.Controls[0]      // a field's element
	v_0 := x.Args[0]        // a second variable
	alias := v_0            // an alias
	first, _ := b.First()   // a call's first result
	_, ok := b.Check()      // and its second
	y := vs[0]              // a slice parameter's element
	z := m["k"]             // a map's
	for _, w := range b.Values {
		_ = w.Pos           // a range over a field
	}
	link := p.Link.Link     // through another package's type
	_ = x.Pos + v_0.Pos + alias.Pos + first.Pos + ok.Pos + y.Pos + z.Pos + link.Pos
	_ = obj.Prog{Pos: 1}.Pos // a composite literal's key and selector
	made := obj.NewProg()    // a package's function
	_ = made.Pos + obj.NewProg().Link.Pos + b.First().Pos + vs[len(vs)-1].Pos + new(Value).Pos
	other := newValue()      // a function of the package, in another file
	_ = other.Pos + newValue().Pos + new(Value).Block.Pos
	_ = F[int](x).Pos + m["k)"].Pos // a generic call; a string with a bracket
	mk := make([]*Value, 1)
	_ = mk[0].Pos // make's arguments are not kept

	g := global.Controls[0] // from a package-level variable
	_ = g.Pos
}

type Local struct{ Values []*Value }

func local(l *Local) {
	h := l.Values[0] // from a type the file declares
	_ = h.Pos
}
`
	f, err := lang.Extract(context.Background(), "ssa/steps.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	hints := resolve.GoRefHints(f)
	settled := map[string]bool{}
	for i, ref := range f.Refs {
		if ref.Name != "Pos" {
			continue
		}
		q := ref.Qualifier
		if hints[i]&resolve.HintSpanned != 0 {
			settled[q] = true
		} else if !settled[q] {
			settled[q] = false
		}
	}
	for _, q := range []string{"x", "v_0", "alias", "first", "ok", "y", "z", "w", "link", "obj.Prog{}",
		"made", "obj.NewProg().Link", "b.First()", "vs[len(vs)-1]", "new(Value)",
		"other", "newValue()", "new(Value).Block"} {
		if got, ok := settled[q]; !ok || !got {
			t.Errorf("%s.Pos: settled %v (seen %v); want its hint settled", q, got, ok)
		}
	}
	for _, q := range []string{"g", "h", "F[int](x)", `m["k)"]`, "mk[0]"} {
		if settled[q] {
			t.Errorf("%s.Pos: settled; want it resolved alone", q)
		}
	}
}
