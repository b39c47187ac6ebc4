package analysis

import "testing"

func TestOutline(t *testing.T) {
	span := func(start int) Span { return Span{Start: start, End: start + 1} }
	f := &FileFacts{Defs: []Def{
		{Name: "Greeter", Kind: KindClass, FullSpan: span(10), Container: None},
		{Name: "greet", Kind: KindMethod, FullSpan: span(20), Container: 0},
		{Name: "name", Kind: KindParameter, FullSpan: span(21), Container: 1},
		{Name: "local", Kind: KindVariable, FullSpan: span(25), Container: 1},
		{Name: "Inner", Kind: KindClass, FullSpan: span(30), Container: 0},
		{Name: "field", Kind: KindProperty, FullSpan: span(31), Container: 4},
		{Name: "top", Kind: KindFunction, FullSpan: span(0), Container: None},
	}}
	var got []string
	for _, it := range f.Outline() {
		got = append(got, string(rune('0'+it.Depth))+f.Defs[it.Def].Name)
	}
	want := []string{"0top", "0Greeter", "1greet", "1Inner", "2field"}
	if len(got) != len(want) {
		t.Fatalf("outline = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("outline = %v, want %v", got, want)
		}
	}
}
