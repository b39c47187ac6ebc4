package syntax

import (
	"context"
	"sort"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"

	"github.com/kast-dev/kast/analysis"
)

// TestFlattenMatchesBinding walks the binding's tree and the flat copy side
// by side: it guards the unexported layout cTree relies on and the preorder
// links kast_flatten writes.
func TestFlattenMatchesBinding(t *testing.T) {
	src := []byte("package p\n\nimport \"fmt\"\n\nfunc f(a, b int) { if a > b { fmt.Println(a) } }\n\nfunc g( {\n")
	l := NewLanguage("go", golang.GetLanguage())
	tree, err := l.Parse(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var compare func(want *sitter.Node, got Node, field string)
	compare = func(want *sitter.Node, got Node, field string) {
		if want.Type() != got.Type() || int(want.StartByte()) != got.Start() || int(want.EndByte()) != got.End() ||
			want.IsNamed() != got.IsNamed() || want.IsMissing() != got.IsMissing() || want.HasError() != got.HasError() {
			t.Fatalf("binding %s [%d,%d) vs flat %s [%d,%d)", want.Type(), want.StartByte(), want.EndByte(), got.Type(), got.Start(), got.End())
		}
		if field != "" && !got.Parent().Field(field).Valid() {
			t.Errorf("%s: field %s missing", got.Parent().Type(), field)
		}
		children := got.Children()
		if int(want.ChildCount()) != len(children) {
			t.Fatalf("%s: %d children, flat has %d", want.Type(), want.ChildCount(), len(children))
		}
		for i, c := range children {
			if !c.Parent().Same(got) {
				t.Fatalf("%s: child %d has the wrong parent", got.Type(), i)
			}
			compare(want.Child(i), c, want.FieldNameForChild(i))
		}
	}
	compare(tree.tree.RootNode(), tree.Root(), "")
}

// TestPointAt checks the hand-written search against sort.SearchInts at every
// offset of a text with empty lines and no final newline.
func TestPointAt(t *testing.T) {
	src := []byte("a\n\nbc\n\n\ndef")
	lines := lineStarts(src)
	for off := 0; off <= len(src); off++ {
		line := sort.SearchInts(lines, off+1) - 1
		want := analysis.Point{Line: line, Col: off - lines[line]}
		if got := pointAt(lines, off); got != want {
			t.Errorf("pointAt(%d) = %+v, want %+v", off, got, want)
		}
	}
}
