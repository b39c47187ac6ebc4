package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// rpcSamples bounds the end-to-end `kast rpc` runs: each starts a process.
const rpcSamples = 200

// runKastAPI measures raw/references on the same sampled positions twice:
// in the `kast serve` daemon (a connection per request over its unix
// socket, as Kast's CLI does) and end to end through `kast rpc`, process
// start included.
func runKastAPI(kast, root string, n int) error {
	ctx := context.Background()
	kast, err := filepath.Abs(kast)
	if err != nil {
		return err
	}
	paths, _, err := treeFiles(root)
	if err != nil {
		return err
	}
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kastbench-api-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))

	// The daemon resolves references in the background once it has
	// indexed; measure it warm, with them stored, as an agent meets it.
	if err := indexWithReferences(kast, root, env); err != nil {
		return err
	}

	start := time.Now()
	daemon := exec.Command(kast, "--log-level", "warn", "serve", "--workspace", root)
	daemon.Env, daemon.Stderr = env, os.Stderr
	if err := daemon.Start(); err != nil {
		return err
	}
	defer func() { _ = daemon.Process.Kill(); _ = daemon.Wait() }()
	socket, err := waitKastReady(ctx, kast, root, env)
	if err != nil {
		return err
	}
	fmt.Printf("tree %s: %d files; daemon ready in %s\n\n", root, len(paths), time.Since(start).Round(time.Millisecond))

	params := func(s sample) string {
		b, _ := json.Marshal(map[string]any{"position": map[string]any{"filePath": s.Path, "offset": s.Offset}})
		return string(b)
	}
	var inDaemon, endToEnd []time.Duration
	errs := [3]int{} // the reference row has none
	for _, s := range samples {
		t0 := time.Now()
		failed, err := socketCall(socket, "raw/references", params(s))
		if err != nil {
			return err
		}
		if failed {
			errs[0]++ // a position with no symbol: still a full round trip
		}
		inDaemon = append(inDaemon, time.Since(t0))
	}
	for _, s := range samples[:min(rpcSamples, len(samples))] {
		cmd := exec.Command(kast, "rpc", "--workspace", root, "raw/references", params(s))
		cmd.Env = env
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				return err
			}
			errs[1]++ // a position with no symbol: still a full round trip
		}
		endToEnd = append(endToEnd, time.Since(t0))
	}
	// The tool an agent would use otherwise: ripgrep for the name as a
	// whole word, text matches with no resolution, on the same samples.
	var grep []time.Duration
	if rg, err := exec.LookPath("rg"); err == nil {
		for _, s := range samples[:min(rpcSamples, len(samples))] {
			cmd := exec.Command(rg, "-l", "-w", "-F", "-t", "go", s.Name, root)
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					return err
				}
			}
			grep = append(grep, time.Since(t0))
		}
	} else {
		fmt.Println("ripgrep: not run (apt-get install ripgrep)")
	}
	fmt.Printf("%-34s %7s %9s %9s %9s %7s\n", "raw/references", "n", "p50", "p95", "p99", "errors")
	for i, r := range []struct {
		name string
		d    []time.Duration
	}{{"daemon (unix socket, conn/request)", inDaemon}, {"kast rpc (process start included)", endToEnd},
		{"reference: rg -l -w -F NAME", grep}} {
		if len(r.d) == 0 {
			continue
		}
		fmt.Printf("%-34s %7d %9s %9s %9s %7d\n", r.name, len(r.d), percentile(r.d, 0.5).Round(time.Microsecond),
			percentile(r.d, 0.95).Round(time.Microsecond), percentile(r.d, 0.99).Round(time.Microsecond), errs[i])
	}
	return nil
}

// waitKastReady polls runtime/status through `kast rpc` (which finds the
// daemon's descriptor) until the index is READY, and returns the socket.
func waitKastReady(ctx context.Context, kast, root string, env []string) (string, error) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		cmd := exec.CommandContext(ctx, kast, "rpc", "--workspace", root, "runtime/status")
		cmd.Env = env
		out, err := cmd.Output()
		var st struct {
			State string `json:"state"`
		}
		if err == nil && json.Unmarshal(out, &st) == nil {
			switch st.State {
			case "READY":
				matches, _ := filepath.Glob(filepath.Join(envValue(env, "XDG_RUNTIME_DIR"), "kast", "*.sock"))
				if len(matches) != 1 {
					return "", fmt.Errorf("want one daemon socket, found %v", matches)
				}
				return matches[0], nil
			case "DEGRADED":
				return "", fmt.Errorf("the daemon is degraded: %s", out)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "", fmt.Errorf("the daemon was not ready within 10 minutes")
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
			v = kv[len(key)+1:]
		}
	}
	return v
}

// socketCall sends one request on a new connection and reads the reply;
// failed reports a JSON-RPC error (no symbol at the position).
func socketCall(socket, method, params string) (failed bool, err error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`+"\n", method, params); err != nil {
		return false, err
	}
	line, err := bufio.NewReaderSize(c, 1<<20).ReadBytes('\n')
	if err != nil {
		return false, err
	}
	var resp struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return false, err
	}
	return resp.Error != nil, nil
}

// indexWithReferences runs kast index --references on root, with env, so
// that a server started next opens a complete, settled index: warm, as an
// editor or agent meets it after the first run.
func indexWithReferences(kast, root string, env []string) error {
	start := time.Now()
	index := exec.Command(kast, "--log-level", "warn", "index", "--references", root)
	index.Env, index.Stdout, index.Stderr = env, io.Discard, os.Stderr
	if err := index.Run(); err != nil {
		return fmt.Errorf("kast index --references: %w", err)
	}
	fmt.Printf("tree %s: indexed and references resolved in %s\n", root, time.Since(start).Round(time.Millisecond))
	return nil
}
