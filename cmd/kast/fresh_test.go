package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ndjsonClient speaks newline-delimited JSON-RPC to a kast process.
type ndjsonClient struct {
	t      *testing.T
	in     io.Writer
	out    *bufio.Scanner
	nextID int
}

func (c *ndjsonClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for c.out.Scan() {
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(c.out.Bytes(), &reply) == nil && reply.ID == c.nextID {
			if reply.Error != nil {
				c.t.Fatalf("%s: %s", method, reply.Error)
			}
			return reply.Result
		}
	}
	c.t.Fatalf("%s: the server ended: %v", method, c.out.Err())
	return nil
}

// TestServeSeesChangesOnDisk: files edited, added, renamed and deleted by
// other programs under a running `kast serve` are in its answers within
// 2 s, with previews that match the files, 100 rounds in a row, and
// runtime/status is READY once they are.
func TestServeSeesChangesOnDisk(t *testing.T) {
	root, _ := kastWorkspace(t)
	cmd := kastCmd(t, "serve", "--stdio", "--workspace", root)
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
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	c := &ndjsonClient{t: t, in: stdin, out: bufio.NewScanner(stdout)}
	c.out.Buffer(nil, 16<<20)

	dir := filepath.Join(root, "src", "main", "kotlin", "sample")
	edited := filepath.Join(dir, "Fresh.kt")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// where resolves name and returns its file, "" when it is not found; the
	// preview must be the file's line as it is now.
	where := func(name string) string {
		var r struct {
			OK     bool `json:"ok"`
			Symbol struct {
				Location struct {
					FilePath  string `json:"filePath"`
					StartLine int    `json:"startLine"`
					Preview   string `json:"preview"`
				} `json:"location"`
			} `json:"symbol"`
		}
		if err := json.Unmarshal(c.call("symbol/resolve", map[string]any{"symbol": name}), &r); err != nil {
			t.Fatal(err)
		}
		if !r.OK {
			return ""
		}
		loc := r.Symbol.Location
		text, err := os.ReadFile(loc.FilePath)
		if err != nil {
			return "stale: " + loc.FilePath + " is gone"
		}
		if lines := strings.Split(string(text), "\n"); loc.StartLine < 1 || loc.StartLine > len(lines) || lines[loc.StartLine-1] != loc.Preview {
			return fmt.Sprintf("stale: preview %q of %s:%d", loc.Preview, loc.FilePath, loc.StartLine)
		}
		return filepath.Base(loc.FilePath)
	}
	ready := func() bool {
		var st struct{ State string }
		_ = json.Unmarshal(c.call("runtime/status", map[string]any{}), &st)
		return st.State == "READY"
	}
	for !ready() { // the first index
		time.Sleep(20 * time.Millisecond)
	}

	for i := range 100 {
		// One round: an edit, a new file, a rename and a delete at once.
		write(edited, fmt.Sprintf("package sample\n\n// round %d\nfun fresh%d() = greet(\"x\")\n", i, i))
		write(filepath.Join(dir, fmt.Sprintf("Add%d.kt", i)), fmt.Sprintf("package sample\n\nfun added%d() = %d\n", i, i))
		if i >= 1 {
			if err := os.Rename(filepath.Join(dir, fmt.Sprintf("Add%d.kt", i-1)), filepath.Join(dir, fmt.Sprintf("Moved%d.kt", i-1))); err != nil {
				t.Fatal(err)
			}
		}
		if i >= 2 {
			if err := os.Remove(filepath.Join(dir, fmt.Sprintf("Moved%d.kt", i-2))); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]string{fmt.Sprintf("fresh%d", i): "Fresh.kt", fmt.Sprintf("added%d", i): fmt.Sprintf("Add%d.kt", i)}
		if i >= 1 {
			want[fmt.Sprintf("fresh%d", i-1)] = ""
			want[fmt.Sprintf("added%d", i-1)] = fmt.Sprintf("Moved%d.kt", i-1)
		}
		if i >= 2 {
			want[fmt.Sprintf("added%d", i-2)] = ""
		}
		deadline := time.Now().Add(2 * time.Second)
		for {
			var wrong []string
			for name, file := range want {
				if got := where(name); got != file {
					wrong = append(wrong, fmt.Sprintf("%s in %q, want %q", name, got, file))
				}
			}
			if len(wrong) == 0 && ready() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d, 2 s after the changes: %s (ready %v)", i, strings.Join(wrong, "; "), ready())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
