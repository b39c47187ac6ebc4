package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Hostile clients of the built binary's NDJSON entry points.

// `kast serve --stdio` answers every call it read and exits at the end of
// its input, whatever came last: a notification, a bad line, a last line
// without its newline.
func TestServeStdioEndOfInput(t *testing.T) {
	root, _ := kastWorkspace(t)
	cmd := kastCmd(t, "serve", "--stdio", "--workspace", root)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"health","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}` + "\n" +
		`{not json` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"health","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d", code)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		id := string(m.ID)
		if m.Error != nil {
			id += "!"
		}
		ids = append(ids, id)
	}
	// Concurrent requests answer in any order; each must be answered once.
	slices.Sort(ids)
	if strings.Join(ids, " ") != "1 2 null!" {
		t.Errorf("replies %v, want health 1, health 2 and a parse error:\n%s", ids, stdout.String())
	}
}

// An unauthenticated TCP client can make `kast serve` hold at most a small
// first line: past it the connection is answered and closed.
func TestServeTCPPreAuthLimit(t *testing.T) {
	root, runDir := kastWorkspace(t)
	cmd := kastCmd(t, "serve", "--workspace", root, "--listen", "tcp:127.0.0.1:0", "--token", "s3cret")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var desc descriptor
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if desc, err = readDescriptor(descriptorPath(runDir, root)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no descriptor")
		}
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", desc.Address)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // detects a hang only
		return c
	}

	// A first line that fills the limit without ending is refused at once.
	c := dial()
	if _, err := c.Write(bytes.Repeat([]byte("x"), maxHelloBytes)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"UNAUTHORIZED"`)) || !bytes.Contains(line, []byte("4096 bytes")) {
		t.Fatalf("first line over the limit: %q %v", line, err)
	}

	// A client streaming megabytes without a newline is cut off: the server
	// stops reading, so the writes fail long before 64 MiB are accepted.
	c = dial()
	chunk := bytes.Repeat([]byte("y"), 64<<10)
	sent := 0
	for ; sent < 64<<20; sent += len(chunk) {
		if _, err = c.Write(chunk); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatalf("the daemon accepted %d MiB from an unauthenticated client", sent>>20)
	}

	// A good client still gets in.
	c = dial()
	if _, err := io.WriteString(c, `{"token":"s3cret"}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"health","params":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(c).ReadBytes('\n'); err != nil || !bytes.Contains(line, []byte(`"result"`)) {
		t.Fatalf("with the token: %q %v", line, err)
	}
}

// `kast mcp` answers what its SDK's transport would end the session on,
// and stays up.
func TestMCPStdioBadInput(t *testing.T) {
	dir, env := searchWorkspace(t)
	cmd := kastCmd(t, "mcp", "--root", dir)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	replies := make(chan []byte)
	go func() {
		defer close(replies)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			replies <- line
		}
	}()
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	exchange := func(line string) reply {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("kast mcp stopped reading: %v", err)
		}
		select {
		case b, ok := <-replies:
			if !ok {
				t.Fatalf("kast mcp exited after %q", line)
			}
			var r reply
			if !utf8.Valid(b) || json.Unmarshal(b, &r) != nil {
				t.Fatalf("reply to %q: %q", line, b)
			}
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("no reply to %q", line)
		}
		return reply{}
	}
	r := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`)
	if r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line, dataCode string
		code           int
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, "PARSE_ERROR", -32700},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, "INVALID_REQUEST", -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list"} trailing`, "PARSE_ERROR", -32700},
		{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"no/such\xfe\"}", "", 0},
	} {
		r := exchange(tc.line)
		if tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code || r.Error.Data.Code != tc.dataCode) {
			t.Errorf("%q: %+v", tc.line, r)
		}
	}
	if r := exchange(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); string(r.ID) != "5" || !strings.Contains(string(r.Result), "regex_search") {
		t.Fatalf("tools/list after bad input: %+v", r)
	}
	stdin.Close()
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d at the end of the input", code)
	}
	if _, ok := <-replies; ok {
		t.Error("a reply after the end of the input")
	}
}
