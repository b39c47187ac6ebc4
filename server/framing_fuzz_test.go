package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// The frame reader's fuzz targets: whatever bytes a client sends, the
// reader neither panics nor loops, hands on only valid JSON-RPC, answers the
// rest with one of its documented errors, and writes only valid UTF-8.

// hangBound is how long one input may take before it counts as a hang; an
// input of a few kilobytes takes microseconds, so only a loop reaches it.
const hangBound = 20 * time.Second

// fuzzConn is a connection whose input is fixed bytes and whose output is
// kept for inspection.
type fuzzConn struct {
	in     io.Reader
	mu     sync.Mutex
	out    bytes.Buffer
	closed bool
}

func (c *fuzzConn) Read(p []byte) (int, error) { return c.in.Read(p) }

func (c *fuzzConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *fuzzConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *fuzzConn) output() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}

var quietLog = slog.New(slog.DiscardHandler)

// withBound runs f, failing the test when it has not returned in hangBound.
func withBound(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("%s did not return within %s", what, hangBound)
	}
}

// FuzzReadLine checks ReadLine against a plain split on '\n': every line
// comes back whole when it fits the limit; one over it comes back as its
// head (what was read until the limit was passed, at most idSniffBytes)
// with ErrFrameTooLarge; then io.EOF.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{}\n"), uint16(8))
	f.Add([]byte("\n\n\nlast without newline"), uint16(4))
	f.Add([]byte("a very long line that passes the limit\nshort\n"), uint16(5))
	f.Add([]byte("\r\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, limit16 uint16) {
		limit := int(limit16 % 300)
		lines := bytes.Split(data, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1] // a final newline ends the last line; it starts none
		}
		// A 16-byte buffer makes every longer line arrive in chunks.
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for i, line := range lines {
			frame, n, err := ReadLine(r, limit)
			if n != int64(len(line)) {
				t.Fatalf("line %d: size %d, want %d", i, n, len(line))
			}
			if len(line) > limit {
				if !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("line %d of %d bytes over the limit %d: err %v", i, len(line), limit, err)
				}
				if !bytes.HasPrefix(line, frame) || len(frame) > idSniffBytes || len(frame) < min(limit+1, idSniffBytes) {
					t.Fatalf("line %d: kept %q, want a head of %q of %d to %d bytes", i, frame, line, min(limit+1, idSniffBytes), idSniffBytes)
				}
				continue
			}
			if err != nil || !bytes.Equal(frame, line) {
				t.Fatalf("line %d: got %q, %v; want %q", i, frame, err, line)
			}
		}
		if frame, _, err := ReadLine(r, limit); err != io.EOF {
			t.Fatalf("after the last line: %q, %v; want io.EOF", frame, err)
		}
	})
}

// replyCodes are the errors the reader answers a frame with, by data.code.
var replyCodes = map[string]int64{
	"FRAME_TOO_LARGE": int64(jsonrpc2.InvalidRequest),
	"INVALID_REQUEST": int64(jsonrpc2.InvalidRequest),
	"INVALID_HEADER":  int64(jsonrpc2.ParseError),
	"PARSE_ERROR":     int64(jsonrpc2.ParseError),
}

// FuzzStream feeds arbitrary bytes to a Stream in each framing. Every frame
// ReadFrame returns is valid JSON and, unless a batch, a JSON-RPC message;
// the input's end is io.EOF; every reply written is valid UTF-8 and one of
// the documented errors. For NDJSON the frames and replies are also checked
// against a reference split into lines.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}xxxxx",
		"Content-Length: 2\r\n\r\n{}Content-Length: 999\r\n\r\n{\"id\":7}",
		"content-length: 10\r\nContent-Type: x\r\n\r\n[1,2,3,4]\n",
		"Content-Length: -1\r\n\r\n{}garbage\r\n\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Length: 40\r\n\r\n{\"id\":\"cut\",\"method\":\"x\"",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}\n\n[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\nnot json\n{\"id\":1}\n",
		"  \r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"pad\":\"" + string(bytes.Repeat([]byte("y"), 200)) + "\"}}\n",
		"X-Pad: 1\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}",
	} {
		for mode := range uint8(3) {
			f.Add([]byte(seed), mode, uint16(64))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, max16 uint16) {
		framing := [...]Framing{FramingAuto, FramingHeader, FramingNDJSON}[mode%3]
		maxFrame := 16 + int(max16%4096)
		conn := &fuzzConn{in: bytes.NewReader(data)}
		s := NewStream(conn, framing, maxFrame, quietLog)
		var (
			frames [][]byte
			end    error
		)
		withBound(t, "reading the input", func() {
			for {
				frame, _, err := s.ReadFrame(context.Background())
				if err != nil {
					end = err
					return
				}
				frames = append(frames, bytes.Clone(frame))
				if len(frames) > len(data) {
					end = fmt.Errorf("%d frames out of %d bytes", len(frames), len(data))
					return
				}
			}
		})
		if !errors.Is(end, io.EOF) {
			t.Fatalf("the input ended with %v, want io.EOF", end)
		}
		for i, frame := range frames {
			if !json.Valid(frame) {
				t.Fatalf("frame %d is not JSON: %q", i, frame)
			}
			if bytes.TrimSpace(frame)[0] != '[' {
				if _, err := jsonrpc2.DecodeMessage(frame); err != nil {
					t.Fatalf("frame %d is not a JSON-RPC message (%v): %q", i, err, frame)
				}
			}
		}
		out := conn.output()
		if !utf8.Valid(out) {
			t.Fatalf("the replies are not valid UTF-8: %q", out)
		}
		replies := splitReplies(t, s.Framing(), out)
		var got []string
		for _, r := range replies {
			got = append(got, checkReply(t, r))
		}
		if s.Framing() == FramingNDJSON {
			in := data
			if framing == FramingAuto {
				in = bytes.TrimLeft(data, " \t\r\n") // what detect skipped
			}
			wantFrames, wantCodes := ndjsonReference(in, maxFrame)
			if len(wantFrames) != len(frames) {
				t.Fatalf("%d frames, want %d", len(frames), len(wantFrames))
			}
			for i := range frames {
				if !bytes.Equal(frames[i], wantFrames[i]) {
					t.Fatalf("frame %d: %q, want %q", i, frames[i], wantFrames[i])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(wantCodes) {
				t.Fatalf("replies %v, want %v", got, wantCodes)
			}
		}
	})
}

// ndjsonReference is what an NDJSON reader must make of in: the frames
// passed on and the data.code of each reply, in order.
func ndjsonReference(in []byte, maxFrame int) (frames [][]byte, codes []string) {
	lines := bytes.Split(in, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for _, line := range lines {
		switch {
		case len(line) > maxFrame:
			codes = append(codes, "FRAME_TOO_LARGE")
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			codes = append(codes, "PARSE_ERROR")
		case bytes.TrimSpace(line)[0] == '[':
			frames = append(frames, line)
		default:
			if _, err := jsonrpc2.DecodeMessage(line); err != nil {
				codes = append(codes, "INVALID_REQUEST")
			} else {
				frames = append(frames, line)
			}
		}
	}
	return frames, codes
}

// splitReplies cuts the output into message bodies by its framing.
func splitReplies(t *testing.T, framing Framing, out []byte) [][]byte {
	t.Helper()
	var bodies [][]byte
	if framing == FramingNDJSON {
		for _, line := range bytes.SplitAfter(out, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if line[len(line)-1] != '\n' {
				t.Fatalf("a reply does not end its line: %q", line)
			}
			bodies = append(bodies, line[:len(line)-1])
		}
		return bodies
	}
	for len(out) > 0 {
		header, rest, ok := bytes.Cut(out, []byte("\r\n\r\n"))
		name, value, _ := bytes.Cut(header, []byte(": "))
		n, err := strconv.Atoi(string(value))
		if !ok || string(name) != "Content-Length" || err != nil || n > len(rest) {
			t.Fatalf("a reply is not framed: %q", out)
		}
		bodies = append(bodies, rest[:n])
		out = rest[n:]
	}
	return bodies
}

// checkReply checks a reply the reader wrote and returns its data.code.
func checkReply(t *testing.T, body []byte) string {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code int64 `json:"code"`
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil {
		t.Fatalf("reply is not a JSON-RPC error (%v): %q", err, body)
	}
	if code, ok := replyCodes[m.Error.Data.Code]; !ok || code != m.Error.Code {
		t.Fatalf("reply with an undocumented error %d/%s: %q", m.Error.Code, m.Error.Data.Code, body)
	}
	if id := bytes.TrimSpace(m.ID); len(id) == 0 || !(string(id) == "null" || id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		t.Fatalf("reply with id %q: %q", m.ID, body)
	}
	return m.Error.Data.Code
}
