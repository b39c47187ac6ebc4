package server_test

import (
	"encoding/json"
	"testing"

	"github.com/kast-dev/kast/server/servertest"
)

// A request with "id": null is answered, with the id null, as Kast answers
// it; a request without an id stays a notification.
func TestNullIDRequestIsAnswered(t *testing.T) {
	ctx := ctxT(t)
	c, _ := servertest.Pipe(t, newServer(false), servertest.NDJSON)
	if err := c.WriteRaw([]byte(`{"jsonrpc":"2.0","method":"test/echo","params":{"n":1},"id":null}` + "\n")); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitOrphan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != "null" || m.Error != nil {
		t.Fatalf("got id %s error %v, want a result with id null", m.ID, m.Error)
	}
	var got map[string]any
	if err := json.Unmarshal(m.Result, &got); err != nil || got["n"] != 1.0 {
		t.Fatalf("result %s", m.Result)
	}
	// Two in flight at once are both answered.
	for range 2 {
		if err := c.WriteRaw([]byte(`{"jsonrpc":"2.0","method":"test/fast","id":null}` + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		m, err := c.WaitOrphan(ctx)
		if err != nil || string(m.ID) != "null" || string(m.Result) != `"fast"` {
			t.Fatalf("got %+v %v", m, err)
		}
	}
}
