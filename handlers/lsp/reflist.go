package lsp

import (
	"encoding/json"
	"slices"
	"strconv"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// referenceLocations is a references answer that encodes itself
// (server.JSONAppender). A common name's answer is large: unsafe.Pointer's
// in the Go standard library is 10,756 locations, 1.7 MB of JSON, and the
// protocol package's reflective encoder spent 18 ms of CPU on it, more
// than the rest of the request once the references were remembered.
type referenceLocations []referenceLocation

// AppendJSON appends the list as the reflective encoder writes it.
func (l referenceLocations) AppendJSON(b []byte) ([]byte, error) {
	size := 2
	for _, loc := range l {
		size += len(loc.URI) + 96 // the rest of a location, most often
	}
	b = slices.Grow(b, size)
	b = append(b, '[')
	var quoted []byte // the last URI, quoted: references come by file
	var last uri.URI
	for i, loc := range l {
		if i > 0 {
			b = append(b, ',')
		}
		if quoted == nil || loc.URI != last {
			q, err := json.Marshal(string(loc.URI))
			if err != nil {
				return nil, err
			}
			quoted, last = q, loc.URI
		}
		b = append(b, `{"uri":`...)
		b = append(b, quoted...)
		b = append(b, `,"range":`...)
		b = appendRange(b, loc.Range)
		if loc.Data != nil {
			b = append(b, `,"data":{"ambiguous":`...)
			b = strconv.AppendBool(b, loc.Data.Ambiguous)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func appendRange(b []byte, r protocol.Range) []byte {
	b = append(b, `{"start":`...)
	b = appendPosition(b, r.Start)
	b = append(b, `,"end":`...)
	b = appendPosition(b, r.End)
	return append(b, '}')
}

func appendPosition(b []byte, p protocol.Position) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendUint(b, uint64(p.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(p.Character), 10)
	return append(b, '}')
}
