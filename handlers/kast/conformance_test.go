package kast

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// sendFrame writes one request envelope as given (params absent stays
// absent, id null stays null) under a fresh id unless keepID, and returns
// its reply.
func (e *kastEnv) sendFrame(t *testing.T, envelope map[string]any, keepID bool) *servertest.Message {
	t.Helper()
	if !keepID {
		envelope["id"] = fmt.Sprintf("frame-%d", time.Now().UnixNano())
	}
	raw, err := json.Marshal(envelope)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.WriteRaw(append(raw, '\n')); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := e.c.WaitOrphan(ctx)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// lifecycleEnv is a daemon over an archive whose runtime/shutdown and
// runtime/restart are recorded rather than run.
func lifecycleEnv(t *testing.T, archive string) (*kastEnv, func() []string) {
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
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var mu sync.Mutex
	var actions []string
	h := host.New(host.Options{})
	k, release, err := Daemon(h, root, func(ctx context.Context, action string) {
		mu.Lock()
		defer mu.Unlock()
		actions = append(actions, action)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	reg := server.NewRegistry()
	k.Register(reg)
	srv := server.New(server.Options{Registry: reg, Profile: server.Profile{Framing: server.FramingNDJSON}})
	c, _ := servertest.Pipe(t, srv, servertest.NDJSON)
	return &kastEnv{t: t, root: root, c: c, host: h}, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), actions...)
	}
}

// TestKastDocsExamples replays every request of Kast's documentation
// (docs/examples/*-request.json) exactly as written, params absent where
// they are absent, over the workspace those examples describe, and
// validates each result against the OpenAPI schema of its method. Then the
// system methods are sent with id null, which must be answered with id null.
func TestKastDocsExamples(t *testing.T) {
	ref := kastReference(t)
	schemas := loadKastSchemas(t, ref)
	examples, err := filepath.Glob(filepath.Join(ref, "docs", "examples", "*-request.json"))
	if err != nil || len(examples) < 22 {
		t.Fatalf("found %d docs examples: %v", len(examples), err)
	}
	// applyEdits changes Sample.kt, whose offsets the others name: it goes last.
	slices.SortStableFunc(examples, func(a, b string) int {
		last := func(p string) int {
			if strings.Contains(p, "applyEdits") {
				return 1
			}
			return 0
		}
		return cmp.Compare(last(a), last(b))
	})
	e, actions := lifecycleEnv(t, "docs.txtar")
	for _, path := range examples {
		name := strings.TrimSuffix(filepath.Base(path), "-request.json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			raw = bytes.ReplaceAll(raw, []byte(`"/workspace/`), []byte(`"`+e.root+`/`))
			var envelope map[string]any
			if err := json.Unmarshal(raw, &envelope); err != nil {
				t.Fatal(err)
			}
			method := envelope["method"].(string)
			m := e.sendFrame(t, envelope, false)
			if m.Error != nil {
				t.Fatalf("%s: %v %s", method, m.Error, m.Error.Data)
			}
			schemas.validate(t, method, m.Result)
		})
	}
	if got := actions(); strings.Join(got, ",") != "RESTART,SHUTDOWN" && strings.Join(got, ",") != "SHUTDOWN,RESTART" {
		t.Errorf("lifecycle actions run: %v", got)
	}
	for _, method := range []string{"health", "runtime/status", "capabilities"} {
		m := e.sendFrame(t, map[string]any{"jsonrpc": "2.0", "method": method, "id": nil}, true)
		if string(m.ID) != "null" || m.Error != nil {
			t.Fatalf("%s with id null: id %s error %v", method, m.ID, m.Error)
		}
		schemas.validate(t, method, m.Result)
	}
}
