package lsp

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// A references answer encodes itself as the protocol package's reflective
// encoder does: same fields, same values, whatever the path holds.
func TestReferenceLocationsEncodeAsTheProtocolDoes(t *testing.T) {
	rng := func(a, b, c, d uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: a, Character: b}, End: protocol.Position{Line: c, Character: d}}
	}
	for _, list := range []referenceLocations{
		{},
		{
			{URI: uri.File("/src/a.go"), Range: rng(0, 0, 0, 3)},
			{URI: uri.File("/src/a.go"), Range: rng(41, 7, 41, 4294967295)},
			{URI: uri.File(`/src/we "quote" <and> & \ ünïcode/b c.go`), Range: rng(3, 1, 4, 2), Data: &referenceData{Ambiguous: true}},
			{URI: uri.File("/src/a.go"), Range: rng(9, 9, 9, 12), Data: &referenceData{}},
		},
	} {
		fast, err := list.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := protocol.Marshal([]referenceLocation(list))
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(fast, &got); err != nil {
			t.Fatalf("%s: %v", fast, err)
		}
		if err := json.Unmarshal(slow, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("encoded\n%s\nthe protocol encodes\n%s", fast, slow)
		}
	}
}
