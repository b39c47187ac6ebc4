package kast

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server/servertest"
)

// kastEnv is a Kast daemon over a fixture workspace, with a client.
type kastEnv struct {
	t    *testing.T
	root string
	c    *servertest.Client
	host *host.Host
}

func newKastEnv(t *testing.T, archive string) *kastEnv {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "kast", archive))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeArchive(t, root, ar)
	return serveKast(t, root)
}

// writeArchive writes an archive's files under root.
func writeArchive(t *testing.T, root string, ar *txtar.Archive) {
	t.Helper()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// serveKast starts a Kast daemon over root, with a client over a pipe.
func serveKast(t *testing.T, root string) *kastEnv {
	t.Helper()
	srv, h := newKastDaemon(t, root)
	c, _ := servertest.Pipe(t, srv, servertest.NDJSON)
	return &kastEnv{t: t, root: root, c: c, host: h}
}

func (e *kastEnv) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// call sends a request and returns its raw result or its error.
func (e *kastEnv) call(method string, params any) (json.RawMessage, *servertest.RPCError) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := e.c.CallID(ctx, json.RawMessage("1"), method, params)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.Result, resp.Error
}

// ok sends a request that must succeed and decodes its result.
func (e *kastEnv) ok(method string, params any, out any) json.RawMessage {
	e.t.Helper()
	res, rpcErr := e.call(method, params)
	if rpcErr != nil {
		e.t.Fatalf("%s: %v %s", method, rpcErr, rpcErr.Data)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			e.t.Fatal(err)
		}
	}
	return res
}

// fails sends a request that must fail with code and data.code.
func (e *kastEnv) fails(method string, params any, code int64, dataCode string) *servertest.RPCError {
	e.t.Helper()
	res, rpcErr := e.call(method, params)
	if rpcErr == nil {
		e.t.Fatalf("%s: succeeded with %s, want %d %s", method, res, code, dataCode)
	}
	if rpcErr.Code != code || rpcErr.DataCode() != dataCode {
		e.t.Fatalf("%s: got %v %s, want %d %s", method, rpcErr, rpcErr.Data, code, dataCode)
	}
	return rpcErr
}

// offset is the byte offset of the n-th (0-based) occurrence of needle in a file.
func (e *kastEnv) offset(rel, needle string, n int) int {
	e.t.Helper()
	src, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	at := -1
	for i := 0; i <= n; i++ {
		j := bytes.Index(src[at+1:], []byte(needle))
		if j < 0 {
			e.t.Fatalf("%s: occurrence %d of %q not found", rel, n, needle)
		}
		at += 1 + j
	}
	return at
}

// pos is a Kast file position at the n-th occurrence of needle in rel.
func (e *kastEnv) pos(rel, needle string, n int) map[string]any {
	return map[string]any{"filePath": e.path(rel), "offset": e.offset(rel, needle, n)}
}
