package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// sample is one identifier position in a Go file.
type sample = benchpos.Sample

// lspServer is a language server subprocess driven through jsonrpc2.
type lspServer struct {
	name string
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	// indexed is when kast logged the end of its first index (unix nanos,
	// 0 before): a cold run says which queries came before it.
	indexed atomic.Int64
}

func startServer(ctx context.Context, name, root string, env []string, argv ...string) (*lspServer, error) {
	return startServerWith(ctx, name, root, env, nil, argv...)
}

// startServerWith is startServer with the server's initializationOptions.
func startServerWith(ctx context.Context, name, root string, env []string, initOptions any, argv ...string) (*lspServer, error) {
	// The server runs in the workspace root, so a relative binary path must
	// be made absolute first.
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Dir, cmd.Env = root, env
	cmd.Stderr = io.Discard
	if dir := os.Getenv("KASTBENCH_STDERR"); dir != "" {
		// A server that dies mid-run says why on its standard error.
		if f, err := os.Create(filepath.Join(dir, name+".stderr")); err == nil {
			cmd.Stderr = f
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(procIO{stdout, stdin}))
	s := &lspServer{name: name, cmd: cmd, conn: conn}
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "window/logMessage" && s.indexed.Load() == 0 {
			var m struct{ Message string }
			if json.Unmarshal(req.Params(), &m) == nil && strings.Contains(m.Message, " indexed: ") {
				s.indexed.Store(time.Now().UnixNano())
			}
		}
		// Answer what servers ask editors: configuration gets one empty
		// section per item; everything else a null result.
		if req.Method() == "workspace/configuration" {
			var p struct{ Items []any }
			_ = json.Unmarshal(req.Params(), &p)
			return make([]any, len(p.Items)), nil
		}
		return nil, nil
	})
	rootURI := uri.File(root)
	err = s.call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": rootURI, "initializationOptions": initOptions,
		"workspaceFolders": []map[string]any{{"uri": rootURI, "name": filepath.Base(root)}},
		"capabilities": map[string]any{"textDocument": map[string]any{
			"completion": map[string]any{"completionItem": map[string]any{"snippetSupport": false}},
		}},
	}, nil)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s initialize: %w", name, err)
	}
	return s, s.conn.Notify(ctx, "initialized", map[string]any{})
}

type procIO struct {
	io.ReadCloser
	io.WriteCloser
}

func (p procIO) Close() error { p.WriteCloser.Close(); return p.ReadCloser.Close() }

func (s *lspServer) call(ctx context.Context, method string, params, result any) error {
	return s.callWithin(ctx, 2*time.Minute, method, params, result)
}

// callWithin is call with a time limit of its own.
func (s *lspServer) callWithin(ctx context.Context, limit time.Duration, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	_, err := s.conn.Call(ctx, method, params, result)
	return err
}

func (s *lspServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.call(ctx, "shutdown", nil, nil)
	_ = s.conn.Notify(ctx, "exit", nil)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
	}
	s.conn.Close()
}

type lspLocation struct {
	URI       string `json:"uri"`
	TargetURI string `json:"targetUri"`
	Range     struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	TargetSelectionRange struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"targetSelectionRange"`
}

func (l lspLocation) key() string {
	if l.TargetURI != "" {
		return fmt.Sprintf("%s:%d", unescapeURI(l.TargetURI), l.TargetSelectionRange.Start.Line)
	}
	return fmt.Sprintf("%s:%d", unescapeURI(l.URI), l.Range.Start.Line)
}

// unescapeURI undoes percent-encoding, which servers apply differently
// ("@" in module cache paths is %40 in one, bare in another).
func unescapeURI(u string) string {
	if s, err := url.PathUnescape(u); err == nil {
		return s
	}
	return u
}

// timings are the latencies of each method, and the first definition found
// at each sample for the agreement count.
type timings struct {
	byMethod map[string][]time.Duration
	// cpuByMethod is the server's CPU time (user and system) over each
	// method's requests, background work included: on a shared machine
	// it says more than wall times.
	cpuByMethod map[string]time.Duration
	firstDef    []string
	// refs is each sample's reference answer (its locations, sorted), to
	// compare with the answer once the background work is done.
	refs []string
	// refsSince is when each sample's references were asked, from the
	// first request.
	refsSince []time.Duration
	// slowest holds the slowest requests, to say which positions set a
	// percentile (kastbench -cold prints them).
	slowest []slowRequest
}

// slowRequest is one request, how long it took and how many results it
// gave (locations, completion items, symbols): a slow reference query
// with thousands of results is another problem than one with three.
type slowRequest struct {
	method, name, at string
	took             time.Duration
	results          int
	// sample is the position's number and since when the request was
	// sent, from the first request: a cold run's slow requests early on
	// share the cores with indexing, later ones with the reference pass.
	sample int
	since  time.Duration
}

// note records a request among the slowest kept, the 40 slowest of each
// method: a cold run lists the slowest completions apart from the slower
// reference queries.
func (t *timings) note(r slowRequest) {
	const keep = 40
	t.slowest = append(t.slowest, r)
	slices.SortFunc(t.slowest, func(a, b slowRequest) int { return cmp.Compare(b.took, a.took) })
	n := 0
	t.slowest = slices.DeleteFunc(t.slowest, func(s slowRequest) bool {
		if s.method != r.method {
			return false
		}
		n++
		return n > keep
	})
}

// measure sends definition, references, completion and workspace/symbol at
// every sample, once the server is ready.
func measure(ctx context.Context, s *lspServer, samples []sample) (timings, error) {
	if err := waitReady(ctx, s, samples); err != nil {
		return timings{}, err
	}
	return measureNow(ctx, s, samples)
}

// failedAnswer stands for a reference query that failed (timed out) in
// timings.refs: no answer to compare.
const failedAnswer = "\x00failed"

// refsInFlight (-asyncrefs) has measureNow send each reference query
// without waiting for its answer: an editor's user goes on while a
// references list is searched, and kast's reference queries wait for the
// first index, so that definitions and completion are measured during it
// too rather than after the first reference query's wait.
var refsInFlight bool

// measureNow sends the requests of measure at every sample, without
// waiting for the server first.
func measureNow(ctx context.Context, s *lspServer, samples []sample) (timings, error) {
	t := timings{byMethod: map[string][]time.Duration{}, cpuByMethod: map[string]time.Duration{}, firstDef: make([]string, len(samples)),
		refs: make([]string, len(samples)), refsSince: make([]time.Duration, len(samples))}
	var mu sync.Mutex // t, while reference queries are in flight
	var inFlight sync.WaitGroup
	first := time.Now()
	for i, smp := range samples {
		u, err := openSample(ctx, s, smp)
		if err != nil {
			inFlight.Wait()
			return t, err
		}
		at := map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": smp.Line, "character": smp.Col}}
		var defs json.RawMessage
		for _, req := range []struct {
			method string
			params any
		}{
			{"textDocument/definition", at},
			{"textDocument/references", referencesParams(u, smp)},
			{"textDocument/completion", at},
			{"workspace/symbol", map[string]string{"query": smp.Name}},
		} {
			send := func() {
				var result json.RawMessage
				start, cpu := time.Now(), processCPU(s.cmd.Process.Pid)
				var err error
				if req.method == "textDocument/references" {
					// kast answers it once the first index has ended:
					// minutes on ten million lines.
					err = s.callWithin(ctx, 30*time.Minute, req.method, req.params, &result)
				} else {
					err = s.call(ctx, req.method, req.params, &result)
				}
				took, cpu := time.Since(start), processCPU(s.cmd.Process.Pid)-cpu
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.byMethod[req.method+" errors"] = append(t.byMethod[req.method+" errors"], 0)
					if req.method == "textDocument/references" {
						t.refs[i] = failedAnswer
					}
					return
				}
				t.cpuByMethod[req.method] += cpu
				switch req.method {
				case "textDocument/definition":
					defs = result
				case "textDocument/references":
					t.refs[i] = locationsKey(result)
					t.refsSince[i] = start.Sub(first)
				}
				t.byMethod[req.method] = append(t.byMethod[req.method], took)
				t.note(slowRequest{req.method, smp.Name, fmt.Sprintf("%s:%d:%d", smp.Path, smp.Line+1, smp.Col+1), took, countResults(result), i, start.Sub(first)})
			}
			if refsInFlight && req.method == "textDocument/references" {
				inFlight.Go(send)
				continue
			}
			send()
		}
		mu.Lock()
		t.firstDef[i] = firstLocation(defs)
		mu.Unlock()
		// A reference query in flight reads the same text from disk.
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	}
	inFlight.Wait()
	return t, nil
}

// countResults counts the elements of a result: a list, or a completion
// list's items.
func countResults(raw json.RawMessage) int {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return len(list)
	}
	var items struct{ Items []json.RawMessage }
	if json.Unmarshal(raw, &items) == nil {
		return len(items.Items)
	}
	return 0
}

func firstLocation(raw json.RawMessage) string {
	var many []lspLocation
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many[0].key()
	}
	var one lspLocation
	if json.Unmarshal(raw, &one) == nil && (one.URI != "" || one.TargetURI != "") {
		return one.key()
	}
	return ""
}

// waitReady returns once the server is loaded: kast when its first index is
// complete and its references resolved (kast.reindex waits for both), gopls when it resolves a definition
// at any of the first samples (it type-checks on first use).
func waitReady(ctx context.Context, s *lspServer, samples []sample) error {
	if s.name == "kast" {
		// Indexing, then resolving every reference: minutes on a large tree.
		ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
		defer cancel()
		start := time.Now()
		_, err := s.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "kast.reindex"}, nil)
		fmt.Printf("kast: kast.reindex (index up to date, references resolved) answered in %s\n", time.Since(start).Round(time.Millisecond))
		return err
	}
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		for _, smp := range samples[:min(20, len(samples))] {
			u := uri.File(smp.Path)
			_ = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": u, "languageId": "go", "version": 1, "text": smp.Text}})
			var defs json.RawMessage
			err := s.call(ctx, "textDocument/definition", map[string]any{
				"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": smp.Line, "character": smp.Col}}, &defs)
			_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
			if err == nil && firstLocation(defs) != "" {
				return nil
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s never answered a definition", s.name)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// runLSP compares kast and gopls request latencies on the same positions.
func runLSP(kast, gopls, root string, paths []string, n int) error {
	ctx := context.Background()
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		return err
	}
	fmt.Printf("\nLSP requests at %d sampled identifier positions in %s (warm servers)\n", len(samples), root)
	results := map[string]timings{}
	servers := []struct {
		name string
		argv []string
	}{{"kast", []string{kast, "lsp", "--stdio"}}}
	if gopls != "" {
		servers = append(servers, struct {
			name string
			argv []string
		}{"gopls", []string{gopls}})
	} else {
		fmt.Println("gopls: not run (go install golang.org/x/tools/gopls@v0.23.0, then -gopls PATH)")
	}
	// kast gets an index of its own, built and with its references
	// resolved before the server starts: the targets are for a warm index,
	// and a server started on a fresh build shares the machine with
	// badger's compactions for minutes.
	tmp, err := os.MkdirTemp("", "kastbench-lsp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kastEnv := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	if err := indexWithReferences(kast, root, kastEnv); err != nil {
		return err
	}
	for _, srv := range servers {
		var env []string // gopls: this process's environment
		if srv.name == "kast" {
			env = kastEnv
		}
		s, err := startServer(ctx, srv.name, root, env, srv.argv...)
		if err != nil {
			return err
		}
		t, err := measure(ctx, s, samples)
		s.close()
		if err != nil {
			return err
		}
		results[srv.name] = t
	}
	fmt.Printf("%-26s %-6s %9s %9s %9s %7s\n", "method", "server", "p50", "p95", "p99", "errors")
	for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/completion", "workspace/symbol"} {
		for _, srv := range servers {
			t := results[srv.name]
			d := t.byMethod[m]
			fmt.Printf("%-26s %-6s %9s %9s %9s %7d\n", m, srv.name, percentile(d, .5).Round(10*time.Microsecond),
				percentile(d, .95).Round(10*time.Microsecond), percentile(d, .99).Round(10*time.Microsecond), len(t.byMethod[m+" errors"]))
		}
	}
	if g, ok := results["gopls"]; ok {
		k := results["kast"]
		agree, both := 0, 0
		for i := range samples {
			if g.firstDef[i] == "" {
				continue // gopls found nothing either: not a comparison point
			}
			both++
			if k.firstDef[i] == g.firstDef[i] {
				agree++
			}
		}
		fmt.Printf("definition agreement with gopls: %d of %d positions gopls resolves (%.1f%%)\n", agree, both, 100*float64(agree)/float64(max(both, 1)))
	}
	return nil
}

// libraryState is the libraries part of kast.status.
type libraryState struct {
	// Settled is nil from a kast that predates it; then every library
	// open being complete is the best sign there is.
	Settled *bool `json:"settled"`
	Indexed []struct {
		Library  string  `json:"library"`
		Files    int     `json:"files"`
		Seconds  float64 `json:"seconds"`
		Complete bool    `json:"complete"`
	} `json:"indexed"`
	// Tagged: the JSON-RPC connection's decoder matches names exactly.
	Skipped []struct {
		Library string `json:"library"`
		Reason  string `json:"reason"`
	} `json:"skipped"`
}

// done reports whether kast has nothing more to index: a project may have
// no libraries at all, so a count of indexed ones cannot say it.
func (st libraryState) done() bool {
	complete := 0
	for _, l := range st.Indexed {
		if l.Complete {
			complete++
		}
	}
	if st.Settled != nil {
		return *st.Settled && complete == len(st.Indexed)
	}
	return len(st.Indexed) > 0 && complete == len(st.Indexed)
}

// summary describes the libraries: how many indexed, the Go standard
// library's time, and the skips counted by reason.
func (st libraryState) summary() string {
	complete, std := 0, ""
	for _, l := range st.Indexed {
		if l.Complete {
			complete++
		}
		if strings.HasPrefix(l.Library, "std@") {
			std = fmt.Sprintf(" (%s %d files in %.1f s)", l.Library, l.Files, l.Seconds)
		}
	}
	reasons := map[string]int{}
	for _, s := range st.Skipped {
		reasons[s.Reason]++
	}
	var why []string
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		why = append(why, fmt.Sprintf("%s %d", r, reasons[r]))
	}
	out := fmt.Sprintf("%d indexed%s, %d skipped", complete, std, len(st.Skipped))
	if complete < len(st.Indexed) {
		out = fmt.Sprintf("%d of %d indexed%s, %d skipped", complete, len(st.Indexed), std, len(st.Skipped))
	}
	if len(why) > 0 {
		out += " (" + strings.Join(why, ", ") + ")"
	}
	return out
}

// awaitLibraries reindexes and waits until kast says its libraries have
// settled, failing with what it last said once wait has passed.
func awaitLibraries(ctx context.Context, s *lspServer, wait time.Duration) (string, error) {
	if _, err := s.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "kast.reindex"}, nil); err != nil {
		return "", err
	}
	deadline := time.Now().Add(wait)
	for {
		var status struct {
			Libraries *libraryState `json:"libraries"`
		}
		if err := s.call(ctx, "workspace/executeCommand", map[string]any{"command": "kast.status"}, &status); err != nil {
			return "", err
		}
		st := status.Libraries
		if st == nil {
			return "", fmt.Errorf("kast.status says nothing of libraries: is this kast built without them?")
		}
		if st.done() {
			return st.summary(), nil
		}
		if time.Now().After(deadline) {
			hint := ""
			if st.Settled == nil {
				hint = "; kast.status has no \"settled\" field, so this kast cannot say it has no libraries"
			}
			return "", fmt.Errorf("kast's libraries did not settle in %s: %s%s", wait, st.summary(), hint)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// locationsKey is a list of locations as one comparable string, in order.
func locationsKey(raw json.RawMessage) string {
	var list []lspLocation
	_ = json.Unmarshal(raw, &list)
	keys := make([]string, len(list))
	for i, l := range list {
		keys[i] = l.key()
	}
	slices.Sort(keys)
	return strings.Join(keys, "\n")
}

// openSample opens a sample's file in the server, as an editor does before
// asking about it, and returns its URI.
func openSample(ctx context.Context, s *lspServer, smp sample) (uri.URI, error) {
	u := uri.File(smp.Path)
	return u, s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "go", "version": 1, "text": smp.Text}})
}

// referencesParams asks for the references at a sample, its declaration
// left out.
func referencesParams(u uri.URI, smp sample) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": smp.Line, "character": smp.Col},
		"context": map[string]bool{"includeDeclaration": false}}
}
