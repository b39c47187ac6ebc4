package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sync/atomic"
)

// A request whose id is the JSON null is a call all the same for Kast's
// clients (its envelope defaults the id to null), but jsonrpc2 reads it as a
// notification and would never answer. The stream gives such a request a
// private string id on the way in and writes null for it on the way out.

// nullIDPrefix starts the private ids; no client sends a NUL in an id.
const nullIDPrefix = "\x00kast-null-id-"

var (
	nullIDSeq     atomic.Uint64
	nullIDPattern = regexp.MustCompile(`"\\u0000kast-null-id-[0-9]+"`)
)

// withNullID returns frame with an explicit null id replaced by a private
// one, or frame unchanged when it is not a request with "id": null.
func withNullID(frame []byte) []byte {
	if !bytes.Contains(frame, []byte("null")) {
		return frame
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(frame, &m) != nil {
		return frame
	}
	id, hasID := m["id"]
	if _, hasMethod := m["method"]; !hasMethod || !hasID || !bytes.Equal(bytes.TrimSpace(id), []byte("null")) {
		return frame
	}
	m["id"], _ = json.Marshal(fmt.Sprintf("%s%d", nullIDPrefix, nullIDSeq.Add(1)))
	out, err := json.Marshal(m)
	if err != nil {
		return frame
	}
	return out
}

// restoreNullIDs writes null for the private ids in an encoded reply.
func restoreNullIDs(frame []byte) []byte {
	if !bytes.Contains(frame, []byte(`kast-null-id-`)) {
		return frame
	}
	return nullIDPattern.ReplaceAll(frame, []byte("null"))
}
