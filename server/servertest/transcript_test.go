package servertest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kast-dev/kast/server"
)

// newTranscriptServer serves a few methods that exercise every kind of step:
// an echo, a request that notifies, one that asks the client, and a state
// that becomes ready only after a few calls.
func newTranscriptServer(t *testing.T, ws *Workspace) *server.Server {
	reg := server.NewRegistry()
	server.Handle(reg, "test/echo", server.Concurrent, func(ctx context.Context, p map[string]any) (map[string]any, error) {
		return p, nil
	})
	server.Handle(reg, "test/notify", server.Ordered, func(ctx context.Context, p struct {
		Notes []string `json:"notes"`
	}) (int, error) {
		for i, n := range p.Notes {
			if err := server.ConnOf(ctx).RPC().Notify(ctx, "test/note", map[string]any{"n": i, "text": n}); err != nil {
				return 0, err
			}
		}
		return len(p.Notes), nil
	})
	server.Handle(reg, "test/ask", server.Concurrent, func(ctx context.Context, p struct{}) (any, error) {
		var answer any
		_, err := server.ConnOf(ctx).RPC().Call(ctx, "test/question", map[string]any{"q": "why"}, &answer)
		return answer, err
	})
	var calls atomic.Int64
	server.Handle(reg, "test/ready", server.Concurrent, func(ctx context.Context, p struct{}) (bool, error) {
		return calls.Add(1) >= 3, nil
	})
	server.Handle(reg, "test/write", server.Ordered, func(ctx context.Context, p struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}) (bool, error) {
		return true, os.WriteFile(p.Path, []byte(p.Text), 0o644)
	})
	ws.Set("GREETING", "hello")
	return server.New(server.Options{Registry: reg})
}

func writeArchive(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.txtar")
	if err := os.WriteFile(base, []byte("-- base.txt --\nfrom the base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "case.txtar")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// replayText replays one archive and returns its error.
func replayText(t *testing.T, text string) error {
	t.Helper()
	tr, err := ParseTranscript(writeArchive(t, text))
	if err != nil {
		return err
	}
	return Transcripts{NewServer: newTranscriptServer}.run(t, tr)
}

const passing = `Every kind of step, as documentation of the format.

-- transcript --
workspace base.txtar

# Templates read the workspace; $ROOT splices the root into a string.
-> {"method":"test/echo","params":{"at":{{offset "src/a.txt" "world"}},"hash":"{{hash "src/a.txt"}}",
     "path":"$ROOT/src/a.txt","size":{{size "src/a.txt"}},"dollar":"$$ROOT $/x","uri":"{{uri "."}}"}}
<- {"result":{"at":6,"hash":"$HASH","path":"$ROOT/src/a.txt","size":12,"dollar":"$$ROOT $/x",
     "uri":"$MATCH:^file:///"}}

# Captures, reuse of any type, partial objects and arrays, a builder's variable.
-> {"method":"test/echo","params":{"id":"0f8fad5b-d9cb-469f-a165-70867728950e","n":7,"list":[1,2,3],"greeting":"$GREETING"}}
<- {"result":{"id":"$uuid=UUID","n":"$n=NUMBER","list":[1,"$..."],"$...":true}}
-> {"method":"test/echo","params":{"again":"$uuid","n":"$n","text":"n is $n"}}
<- {"result":{"again":"$uuid","n":7.0,"text":"n is 7"}}

# Notifications in order, then the first matching one.
-> {"method":"test/notify","params":{"notes":["a","b","c"]}}
<- {"result":3}
<~ {"method":"test/note","params":{"n":0,"text":"a"}}
<~* {"method":"test/note","params":{"n":2,"text":"c"}}

# A request from the server, answered as told.
answer test/question {"because":"$ROOT"}
-> {"method":"test/ask"}
<= {"method":"test/question","params":{"q":"why"}}
<- {"result":{"because":"$ROOT"}}

# A request in flight while another runs; an explicit id is echoed.
->first {"method":"test/echo","params":{"first":true}}
-> {"id":"mine","method":"test/echo","params":{}}
<- {"id":"mine","result":{}}
<-first {"result":{"first":true}}

# Malformed JSON is answered with id null.
=> {not json
<- {"id":null,"error":{"code":-32700,"message":"$STRING","data":"$ANY"}}

# A state only visible by asking again.
poll
-> {"method":"test/ready"}
<- {"result":true}

let before "{{hash "src/a.txt"}}"
-> {"method":"test/write","params":{"path":"$ROOT/src/a.txt","text":"changed"}}
<- {"result":true}
file src/a.txt contains "changed"
file src/a.txt lacks "world"
file src/a.txt notmatches "^hello"
file base.txt unchanged
file src/*.txt exists
file src/*.tmp absent
-> {"method":"test/echo","params":{"before":"$before","now":"{{hash "src/a.txt"}}"}}
<- {"result":{"before":"a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447","now":"$HASH"}}
-- src/a.txt --
hello world
-- @unused --
data for the builder only
`

func TestTranscriptPasses(t *testing.T) {
	if err := replayText(t, passing); err != nil {
		t.Fatal(err)
	}
}

func TestTranscriptFailures(t *testing.T) {
	for _, tc := range []struct {
		name, transcript string
		want             []string // fragments of the error
	}{
		{"wrong value", "-> {\"method\":\"test/echo\",\"params\":{\"a\":1,\"b\":{\"c\":2}}}\n<- {\"result\":{\"a\":1,\"b\":{\"c\":3}}}\n",
			[]string{"case.txtar:4", "result.b.c: want 3, got 2", `-       "c": 3`, `+       "c": 2`}},
		{"extra key", "-> {\"method\":\"test/echo\",\"params\":{\"a\":1,\"b\":2}}\n<- {\"result\":{\"a\":1}}\n",
			[]string{"result.b: unexpected"}},
		{"missing key", "-> {\"method\":\"test/echo\",\"params\":{\"a\":1}}\n<- {\"result\":{\"a\":1,\"b\":2,\"$...\":true}}\n",
			[]string{"result.b: missing"}},
		{"array length", "-> {\"method\":\"test/echo\",\"params\":{\"a\":[1,2]}}\n<- {\"result\":{\"a\":[1]}}\n",
			[]string{"result.a: want 1 elements, got 2"}},
		{"error for result", "-> {\"method\":\"no/such\"}\n<- {\"result\":null}\n",
			[]string{"result: missing", "error: unexpected"}},
		{"placeholder", "-> {\"method\":\"test/echo\",\"params\":{\"a\":\"x\"}}\n<- {\"result\":{\"a\":\"$NUMBER\"}}\n",
			[]string{`result.a: want $NUMBER, got "x"`}},
		{"notification order", "-> {\"method\":\"test/notify\",\"params\":{\"notes\":[\"a\",\"b\"]}}\n<- {\"result\":2}\n<~ {\"method\":\"test/note\",\"params\":{\"n\":1,\"text\":\"b\"}}\n",
			[]string{"case.txtar:5", "params.n: want 1, got 0"}},
		{"unexpected notification", "-> {\"method\":\"test/notify\",\"params\":{\"notes\":[\"a\",\"b\"]}}\n<- {\"result\":2}\n<~ {\"method\":\"test/note\",\"params\":{\"n\":0,\"text\":\"a\"}}\n",
			[]string{"messages no step expected", `test/note {"n":1,"text":"b"}`}},
		{"strict", "strict\n-> {\"method\":\"test/notify\",\"params\":{\"notes\":[\"a\"]}}\n<- {\"result\":1}\n",
			[]string{"messages no step expected", `test/note {"n":0,"text":"a"}`}},
		{"raw frame reply", "=> {not json\n<- {\"id\":null,\"error\":{\"code\":1,\"message\":\"$STRING\",\"data\":\"$ANY\"}}\n",
			[]string{"case.txtar:4", "no reply to the raw frame matches", "error.code: want 1, got -32700"}},
		{"file check", "file f.txt contains \"nope\"\n-- f.txt --\nyes\n", []string{`file f.txt contains "nope" fails`}},
		{"unknown variable", "-> {\"method\":\"test/echo\",\"params\":{\"a\":\"$nope\"}}\n<- {\"result\":null}\n",
			[]string{"unknown variable $nope"}},
		{"parse: reply without request", "<- {\"result\":1}\n", []string{"case.txtar:3: a reply without a request"}},
		{"parse: request without reply", "-> {\"method\":\"test/echo\"}\n", []string{"has no reply"}},
		{"parse: unknown step", "send {}\n", []string{`unknown step "send"`}},
		{"parse: bad file check", "file x.txt sort\n", []string{"unknown file check"}},
		{"parse: link after a step", "-> {\"method\":\"test/echo\"}\n<- {\"result\":null}\nlink a $OUTSIDE\n", []string{"before the first step"}},
		// The link leads to the $OUTSIDE file: reading through it reads that file.
		{"link to outside", "link in.txt $OUTSIDE/out.txt\nfile in.txt contains \"inside\"\n-- $OUTSIDE/out.txt --\noutside\n",
			[]string{`file in.txt contains "inside" fails; it holds:` + "\noutside"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := replayText(t, "A failing transcript.\n-- transcript --\n"+tc.transcript)
			if err == nil {
				t.Fatal("the transcript passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestMatchPlaceholders(t *testing.T) {
	vars := map[string]any{"ROOT": "/w", "id": json.Number("3")}
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{`"$ANY"`, `null`, true},
		{`"$STRING"`, `1`, false},
		{`"$NUMBER"`, `1.5`, true},
		{`"$BOOL"`, `false`, true},
		{`"$UUID"`, `"0F8FAD5B-D9CB-469F-A165-70867728950E"`, true},
		{`"$UUID"`, `"not-a-uuid"`, false},
		{`"$TIME"`, `"2026-03-18T15:30:00.123Z"`, true},
		{`"$TIME"`, `"yesterday"`, false},
		{`"$DURATION"`, `0.25`, true},
		{`"$DURATION"`, `"1m30s"`, true},
		{`"$DURATION"`, `-1`, false},
		{`"$HASH"`, `"0123456789abcdef0123"`, true},
		{`"$HASH"`, `"xyz"`, false},
		{`"$PATH"`, `"/a/b"`, true},
		{`"$PATH"`, `"a/b"`, false},
		{`"$MATCH:^a+$"`, `"aaa"`, true},
		{`"$MATCH:^a+$"`, `"ab"`, false},
		{`"$MATCH:^$ROOT/x+$"`, `"/w/xx"`, true},
		{`"$MATCH:^$ROOT/x+$"`, `"/wa/xx"`, false},
		{`"$ROOT/x"`, `"/w/x"`, true},
		{`"$id"`, `3`, true},
		{`"$id"`, `"3"`, false},
		{`{"a":[1,{"b":2}]}`, `{"a":[1.0,{"b":2}]}`, true},
		{`[1,"$..."]`, `[1]`, true},
		{`[1,"$..."]`, `[]`, false},
		{`{"$...":true}`, `{"x":1}`, true},
		{`{"$...":true}`, `[]`, false},
	} {
		w, _ := decodeJSON([]byte(tc.want))
		g, _ := decodeJSON([]byte(tc.got))
		if _, _, diffs := match(w, g, vars); (len(diffs) == 0) != tc.ok {
			t.Errorf("match(%s, %s): %v, want ok=%v", tc.want, tc.got, diffs, tc.ok)
		}
	}
}

func TestLineDiff(t *testing.T) {
	got := lineDiff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n")
	want := "  b\n  c\n- d\n+ D\n  e\n  f\n  …\n"
	if !strings.HasSuffix(got, want) || !strings.HasPrefix(got, "  …\n") {
		t.Errorf("lineDiff:\n%s", got)
	}
}
