package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// String ids (Profile.StringIDs): kimi-cli's wire accepts only string ids.
// The server's own requests are numbered by the JSON-RPC library; on such a
// connection their ids go out as "kast-N" and the replies come back to N.

const serverIDPrefix = "kast-"

// stringIDViolation says why a frame breaks the string-id rule, or "".
func stringIDViolation(frame []byte) string {
	t := bytes.TrimSpace(frame)
	if len(t) > 0 && t[0] == '[' {
		return "batches are not accepted"
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Method == nil {
		return ""
	}
	if id := bytes.TrimSpace(m.ID); len(id) > 0 && id[0] != '"' && !bytes.Equal(id, []byte("null")) {
		return "the request id is not a string"
	}
	return ""
}

// outboundID rewrites a server request's numeric id as a string. The
// library writes a call as {"jsonrpc":"2.0","method":…,"params":…,"id":N}:
// the id comes last and only a call ends in one brace after a number
// (a notification's params close first).
func outboundID(raw []byte) []byte {
	i := bytes.LastIndex(raw, []byte(`,"id":`))
	if i < 0 || len(raw) == 0 || raw[len(raw)-1] != '}' || !bytes.Contains(raw[:min(len(raw), 40)], []byte(`"method":`)) {
		return raw
	}
	n, err := strconv.ParseInt(string(raw[i+len(`,"id":`):len(raw)-1]), 10, 64)
	if err != nil {
		return raw
	}
	out := append(bytes.Clone(raw[:i]), `,"id":"`+serverIDPrefix+strconv.FormatInt(n, 10)+`"}`...)
	return out
}

// inboundID turns the string id of a reply to a server request back into
// the library's number.
func inboundID(frame []byte) []byte {
	if !bytes.Contains(frame, []byte(serverIDPrefix)) {
		return frame
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(frame, &m) != nil {
		return frame
	}
	if _, isCall := m["method"]; isCall {
		return frame
	}
	var id string
	if json.Unmarshal(m["id"], &id) != nil || !strings.HasPrefix(id, serverIDPrefix) {
		return frame
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(id, serverIDPrefix), 10, 64)
	if err != nil {
		return frame
	}
	m["id"] = json.RawMessage(strconv.FormatInt(n, 10))
	out, err := json.Marshal(m)
	if err != nil {
		return frame
	}
	return out
}
