package server

import "testing"

// The string-id rules of kimi-cli's wire (Profile.StringIDs).
func TestStringIDs(t *testing.T) {
	for _, tc := range []struct{ frame, want string }{
		{`{"jsonrpc":"2.0","id":"a","method":"prompt"}`, ""},
		{`{"jsonrpc":"2.0","method":"event","params":{}}`, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, ""},
		{`{"jsonrpc":"2.0","id":"kast-1","result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"prompt"}`, "the request id is not a string"},
		{`[{"jsonrpc":"2.0","id":"a","method":"prompt"}]`, "batches are not accepted"},
	} {
		if got := stringIDViolation([]byte(tc.frame)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.frame, got, tc.want)
		}
	}
	for _, tc := range []struct{ raw, want string }{
		{`{"jsonrpc":"2.0","method":"request","params":{"type":"ApprovalRequest"},"id":7}`, `{"jsonrpc":"2.0","method":"request","params":{"type":"ApprovalRequest"},"id":"kast-7"}`},
		{`{"jsonrpc":"2.0","method":"event","params":{"x":1,"id":5}}`, `{"jsonrpc":"2.0","method":"event","params":{"x":1,"id":5}}`},
		{`{"jsonrpc":"2.0","id":"a","result":{"id":3}}`, `{"jsonrpc":"2.0","id":"a","result":{"id":3}}`},
	} {
		if got := string(outboundID([]byte(tc.raw))); got != tc.want {
			t.Errorf("outbound %s: %s, want %s", tc.raw, got, tc.want)
		}
	}
	if got := string(inboundID([]byte(`{"jsonrpc":"2.0","id":"kast-7","result":{"response":"approve"}}`))); got != `{"id":7,"jsonrpc":"2.0","result":{"response":"approve"}}` {
		t.Errorf("inbound: %s", got)
	}
	if got := string(inboundID([]byte(`{"jsonrpc":"2.0","id":"kast-7","method":"x"}`))); got != `{"jsonrpc":"2.0","id":"kast-7","method":"x"}` {
		t.Errorf("a client request keeps its id: %s", got)
	}
}
