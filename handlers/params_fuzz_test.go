package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// The params fuzz targets drive each entry point's real registry with
// fuzzed params for every method it registers, over an in-process pipe.
// Whatever the params, no handler panics (the transport would answer
// -32603 "internal error", or only log it for a notification), no call
// hangs, and every call is answered with a result or an error carrying
// data.code.

// callBound is how long one call may take: the workspace is a handful of
// files in memory and no provider answers, so only a hang reaches it.
const callBound = 30 * time.Second

// paramsHarness is one entry point of one process, over a small workspace
// that is restored before each input.
type paramsHarness struct {
	entry   handlers.Entry
	framing servertest.Framing
	lsp     bool   // initialize each connection as an editor does
	ping    string // a cheap request that shows the connection still answers
	names   []string
	root    string
	files   map[string][]byte // the workspace as it should be, by path
	proc    handlers.Process
	session string // the Kward session $SESSION names
	panics  atomic.Int64
}

// panicCounter counts the transport's "handler panic" log records.
type panicCounter struct{ n *atomic.Int64 }

func (h panicCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h panicCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "handler panic" {
		h.n.Add(1)
	}
	return nil
}
func (h panicCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h panicCounter) WithGroup(string) slog.Handler      { return h }

// isolate points everything the process reads or writes outside the
// workspace at temporary folders, unsets every provider, and lets HTTP
// reach loopback only (a fuzzed config/update may name any provider or
// endpoint).
func isolate(f *testing.F) {
	dir := f.TempDir()
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "HOME"} {
		f.Setenv(v, filepath.Join(dir, strings.ToLower(v)))
	}
	for _, v := range []string{"KAST_PROVIDER", "KAST_MODEL", "KAST_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
		"OPENROUTER_API_KEY", "MOONSHOT_API_KEY", "KAST_EMBEDDER", "KAST_EMBED_URL", "KAST_EMBED_API_KEY", "KAST_LOGGING",
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		f.Setenv(v, "")
	}
	// OAuth logins listen on a free loopback port and exchange codes with a
	// closed one; the OpenRouter catalog is fetched from a closed one too.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	config := fmt.Sprintf(`{"oauth":{"openai":{"issuer":"http://127.0.0.1:1","callbackPort":%d}},`+
		`"providers":{"openrouter":{"baseUrl":"http://127.0.0.1:1/api/v1"}}}`, port)
	cfgDir := filepath.Join(dir, "xdg_config_home", "kast")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(config), 0o600); err != nil {
		f.Fatal(err)
	}

	orig := http.DefaultTransport
	tr := orig.(*http.Transport).Clone()
	tr.Proxy = nil
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("this test reaches loopback only, not %s", addr)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	http.DefaultTransport = tr
	f.Cleanup(func() { http.DefaultTransport = orig })
}

// newParamsHarness writes the Go fixture workspace, builds the process and
// entry point (kind: "lsp", "kast", "kward", "acp" or "kimi-wire") and opens a Kward session for
// $SESSION.
func newParamsHarness(f *testing.F, kind string) *paramsHarness {
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "kast", "go.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	h := &paramsHarness{root: root, files: map[string][]byte{}}
	for _, file := range ar.Files {
		h.files[filepath.Join(root, filepath.FromSlash(file.Name))] = file.Data
	}
	h.restore(f)
	isolate(f)

	p := handlers.NewProcess(host.New(host.Options{InMemory: true, Logger: slog.New(slog.DiscardHandler)}))
	// The workspace stays open between connections, so each input finds it
	// indexed rather than indexing it again, and the Kast methods on the
	// LSP connection take it for their root rather than the working folder.
	if _, err := p.Host.Acquire(root); err != nil {
		f.Fatal(err)
	}
	ready, err := p.Host.Index(root)
	if err != nil {
		f.Fatal(err)
	}
	<-ready
	f.Cleanup(func() { p.Host.Release(root) })
	switch kind {
	case "lsp":
		h.entry, h.framing, h.lsp, h.ping = handlers.LSP(p), servertest.Header, true, "tools/list"
	case "kward":
		h.entry, h.framing, h.ping = handlers.KwardRPC(p), servertest.Header, "tools/list"
	case "kast":
		entry, release, err := handlers.KastDaemon(p.Host, root, func(context.Context, string) {})
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(release)
		h.entry, h.framing, h.ping = entry, servertest.NDJSON, "health"
	case "acp":
		h.entry, h.framing, h.ping = handlers.ACP(p, acp.Options{Version: "fuzz"}), servertest.NDJSON, "session/list"
	case "kimi-wire":
		h.entry, h.framing, h.ping = handlers.KimiWire(p, kimi.WireOptions{WorkDir: root}), servertest.NDJSON, "replay"
	}
	h.names = h.entry.Registry.Names()

	h.proc = p
	return h
}

// vars returns the placeholders of fuzzed params, opening a new session
// when an input closed or deleted the last one.
func (h *paramsHarness) vars(tb testing.TB) *strings.Replacer {
	mgr := h.proc.Agent.Manager()
	if _, err := mgr.Session(h.session); h.session == "" || err != nil {
		ms, err := mgr.Create(h.root, "fuzz")
		if err != nil {
			tb.Fatal(err)
		}
		h.session = ms.ID()
	}
	file := filepath.Join(h.root, "sample", "use.go")
	jsonText := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	return strings.NewReplacer(
		"$ROOT", jsonText(h.root),
		"$FILE", jsonText(file),
		"$URI", jsonText(servertest.FileURI(file)),
		"$RURI", jsonText(servertest.FileURI(h.root)),
		"$HASH", edit.Hash(h.files[file]),
		"$SESSION", jsonText(h.session),
	)
}

// restore puts the workspace back as it was, and its index when it
// changed: a successful raw/apply-edits or a created file would otherwise
// change what later inputs find.
func (h *paramsHarness) restore(tb testing.TB) {
	changed := false
	err := filepath.WalkDir(h.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, keep := h.files[p]; !keep {
			changed = true
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for p, data := range h.files {
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		changed = true
	}
	if changed && h.proc.Host != nil {
		if _, err := h.proc.Host.Refresh(context.Background(), h.root, nil); err != nil {
			tb.Fatal(err)
		}
	}
}

// method maps any fuzzed name to a registered one, so every input
// exercises a real handler.
func (h *paramsHarness) method(name string) string {
	if _, ok := h.entry.Registry.Lookup(name); ok {
		return name
	}
	sum := fnv.New32a()
	sum.Write([]byte(name))
	return h.names[sum.Sum32()%uint32(len(h.names))]
}

// seed adds every registered method with params of no shape, the wrong
// shape and the family's shape.
func (h *paramsHarness) seed(f *testing.F, shape func(method string) string) {
	for _, name := range h.names {
		f.Add(name, []byte(`{}`))
		f.Add(name, []byte(`{"textDocument":7,"position":"x","filePath":[],"sessionId":{},"query":null,"edits":{}}`))
		if s := shape(name); s != "" {
			f.Add(name, []byte(s))
		}
	}
}

// run serves one input on a fresh connection and checks its answer.
func (h *paramsHarness) run(t *testing.T, name string, params []byte) {
	if !json.Valid(params) {
		return // the frame reader answers bad JSON before any registry (server's FuzzStream)
	}
	method := h.method(name)
	params = []byte(h.vars(t).Replace(string(params)))
	if !json.Valid(params) || !h.confined(method, params) {
		return
	}
	h.restore(t)
	log := slog.New(panicCounter{&h.panics})
	opts := h.entry.Options("fuzz", log)
	c, _ := servertest.Pipe(t, server.New(opts), h.framing)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	if h.lsp {
		if _, err := c.Initialize(ctx, h.root, nil); err != nil {
			t.Fatalf("initialize: %v", err)
		}
	}
	before := h.panics.Load()
	m, _ := h.entry.Registry.Lookup(method)
	if m.Notification {
		if err := c.Notify(method, json.RawMessage(params)); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	} else {
		resp, err := c.CallID(ctx, json.RawMessage(`"fuzz"`), method, json.RawMessage(params))
		if err != nil {
			t.Fatalf("%s %s: %v", method, params, err)
		}
		checkAnswer(t, method, params, resp)
	}
	if method != "shutdown" { // Kward's shutdown ends the connection
		resp, err := c.CallID(ctx, json.RawMessage(`"ping"`), h.ping, nil)
		if err != nil {
			t.Fatalf("after %s %s the connection no longer answers: %v", method, params, err)
		}
		checkAnswer(t, h.ping, nil, resp)
	}
	if n := h.panics.Load() - before; n > 0 {
		t.Fatalf("%s %s: %d handler panics", method, params, n)
	}
}

// confined leaves out inputs that would make the process index a folder
// other than the workspace (a workspace folder added anywhere): that costs
// time, not correctness.
func (h *paramsHarness) confined(method string, params []byte) bool {
	if strings.HasPrefix(method, "session/") && bytes.Contains(params, []byte(`"command"`)) {
		return false // an ACP MCP server to start: a fuzzed command line could be any program
	}
	if method != "workspace/didChangeWorkspaceFolders" {
		return true
	}
	var p struct {
		Event struct {
			Added []struct {
				URI string `json:"uri"`
			} `json:"added"`
		} `json:"event"`
	}
	if json.Unmarshal(params, &p) != nil {
		return true // refused while decoding
	}
	for _, folder := range p.Event.Added {
		if !strings.HasPrefix(folder.URI, servertest.FileURI(h.root)+"/") {
			return false
		}
	}
	return true
}

// checkAnswer fails on a panic's answer or an error without data.code.
func checkAnswer(t *testing.T, method string, params []byte, resp *servertest.Message) {
	t.Helper()
	if resp.Error == nil {
		return
	}
	if resp.Error.Code == -32603 && strings.Contains(resp.Error.Message, "internal error") {
		t.Fatalf("%s %s panicked: %s", method, params, resp.Error.Message)
	}
	if resp.Error.DataCode() == "" {
		t.Fatalf("%s %s: error without data.code: %d %s", method, params, resp.Error.Code, resp.Error.Message)
	}
}

// lspShape is an LSP-ish params object: every position-taking method finds
// what it reads (LSP decoding ignores the keys a method does not have).
func lspShape(method string) string {
	switch {
	case strings.HasPrefix(method, "textDocument/"), strings.HasPrefix(method, "callHierarchy/"),
		strings.HasPrefix(method, "typeHierarchy/"), strings.HasPrefix(method, "workspace/"), method == "completionItem/resolve":
		return `{"textDocument":{"uri":"$URI","languageId":"go","version":3,"text":"package sample\n\nfunc Use() string { return Greet(\"kast\") }\n"},` +
			`"position":{"line":2,"character":28},"context":{"includeDeclaration":true,"triggerKind":1},"newName":"Hello",` +
			`"range":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}},"contentChanges":[{"range":{"start":{"line":2,"character":28},"end":{"line":2,"character":33}},"text":"Greeting"}],` +
			`"item":{"name":"Greet","kind":12,"uri":"$URI","range":{"start":{"line":2,"character":28},"end":{"line":2,"character":33}},"selectionRange":{"start":{"line":2,"character":28},"end":{"line":2,"character":33}}},` +
			`"query":"Gre","changes":[{"uri":"$URI","type":2}],"event":{"added":[{"uri":"$RURI/sample","name":"s"}],"removed":[]},"command":"x","arguments":[]}`
	}
	return ""
}

// kastShape is a Kast position request on the fixture; Kast refuses
// unknown keys, so the fuzzer starts from ones it takes.
func kastShape(method string) string {
	switch strings.TrimPrefix(strings.TrimPrefix(method, "kast/"), "raw/") {
	case "apply-edits", "rawApplyEdits":
		return `{"edits":[{"filePath":"$FILE","startOffset":43,"endOffset":48,"newText":"Hello"}],"fileHashes":[{"filePath":"$FILE","hash":"$HASH"}],` +
			`"fileOperations":[{"type":"CREATE_FILE","filePath":"$ROOT/sample/new.go","content":"package sample\n"}]}`
	case "file-outline", "rawFileOutline":
		return `{"filePath":"$FILE"}`
	case "diagnostics", "rawDiagnostics", "optimize-imports", "rawOptimizeImports":
		return `{"filePaths":["$FILE","$ROOT/sample/broken.go"]}`
	case "workspace-symbol", "rawWorkspaceSymbol", "workspace-search", "rawWorkspaceSearch":
		return `{"pattern":"Greet"}`
	}
	if strings.HasPrefix(method, "symbol/") || strings.HasPrefix(method, "kast/symbol") {
		return `{"symbol":"Greet"}`
	}
	return `{"position":{"filePath":"$FILE","offset":43}}`
}

// kwardShape names the session opened for the harness.
func kwardShape(string) string {
	return `{"sessionId":"$SESSION","workspaceRoot":"$ROOT","input":"hello","name":"fuzz","turnId":"t","model":"m","provider":"openai"}`
}

func FuzzLSPParams(f *testing.F) {
	h := newParamsHarness(f, "lsp")
	h.seed(f, func(m string) string {
		if s := lspShape(m); s != "" {
			return s
		}
		if strings.Contains(m, "/raw") || strings.HasPrefix(m, "raw/") || strings.Contains(m, "symbol") {
			return kastShape(m)
		}
		if strings.HasPrefix(m, "ck/") {
			return `{"query":"Greet","pattern":"Greet","path":"$ROOT","top_k":3}`
		}
		return kwardShape(m)
	})
	f.Fuzz(h.run)
}

func FuzzKastDaemonParams(f *testing.F) {
	h := newParamsHarness(f, "kast")
	h.seed(f, kastShape)
	f.Fuzz(h.run)
}

func FuzzKwardRPCParams(f *testing.F) {
	h := newParamsHarness(f, "kward")
	h.seed(f, kwardShape)
	f.Fuzz(h.run)
}

// acpShape is a params object every ACP method finds what it reads in.
func acpShape(string) string {
	return `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"methodId":"none","sessionId":"$SESSION",` +
		`"cwd":"$ROOT","additionalDirectories":["$ROOT/sample"],"mcpServers":[],"modeId":"plan","prompt":[{"type":"text","text":"hello"}]}`
}

// kimiWireShape is a params object every kimi-cli wire method finds what it
// reads in.
func kimiWireShape(string) string {
	return `{"protocol_version":"1.10","client":{"name":"fuzz"},"capabilities":{"supports_question":true},` +
		`"external_tools":[{"name":"t","description":"d","parameters":{"type":"object"}}],"user_input":"hello","enabled":true}`
}

func FuzzACPParams(f *testing.F) {
	h := newParamsHarness(f, "acp")
	h.seed(f, acpShape)
	f.Fuzz(h.run)
}

func FuzzKimiWireParams(f *testing.F) {
	h := newParamsHarness(f, "kimi-wire")
	h.seed(f, kimiWireShape)
	f.Fuzz(h.run)
}
