package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/document"
)

// runColdAt follows a few positions' reference answers through a cold
// start: the server starts on an empty cache, and each position's
// references are asked from the first ready answer on, every interval,
// until the background work ends, then once more. An answer that differs
// from the last one while the index is complete is one the cold path gets
// wrong; before, a file not yet indexed is simply missing.
func runColdAt(kast, root, positions string, interval time.Duration) error {
	var samples []sample
	for _, p := range strings.Split(positions, ",") {
		s, err := sampleAt(root, p)
		if err != nil {
			return err
		}
		samples = append(samples, s)
	}
	tmp, err := os.MkdirTemp("", "kastbench-coldat")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	start := time.Now()
	s, err := startServer(ctx, "kast", root, env, kast, "lsp", "--stdio")
	if err != nil {
		return err
	}
	defer s.close()
	if err := waitSymbols(ctx, s, samples); err != nil {
		return err
	}
	settled := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "kast.reindex"}, nil)
		settled <- err
	}()
	for done := false; ; {
		select {
		case err := <-settled:
			if err != nil {
				return err
			}
			done = true
		default:
		}
		for _, smp := range samples {
			n, took, err := referencesAt(ctx, s, smp)
			if err != nil {
				return err
			}
			fmt.Printf("%7.1fs %-60s %5d results %8.1f ms\n", time.Since(start).Seconds(), strings.TrimPrefix(smp.String(), root+"/"),
				n, float64(took)/1e6)
		}
		if done {
			return nil
		}
		time.Sleep(interval)
	}
}

// sampleAt is the sample at path:line:col (1-based, path under root).
func sampleAt(root, at string) (sample, error) {
	parts := strings.Split(at, ":")
	if len(parts) != 3 {
		return sample{}, fmt.Errorf("want path:line:col, got %q", at)
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return sample{}, fmt.Errorf("want path:line:col, got %q", at)
	}
	path := filepath.Join(root, parts[0])
	src, err := os.ReadFile(path)
	if err != nil {
		return sample{}, err
	}
	doc := document.New("", "go", 0, src)
	off, err := doc.Offset(document.Position{Line: line - 1, Character: col - 1}, document.UTF16)
	if err != nil {
		return sample{}, err
	}
	end := off
	for end < len(src) && (src[end] == '_' || src[end] >= '0' && src[end] <= '9' || src[end]|0x20 >= 'a' && src[end]|0x20 <= 'z') {
		end++
	}
	return sample{Path: path, Text: string(src), Name: string(src[off:end]), Line: line - 1, Col: col - 1, Offset: off}, nil
}

// referencesAt opens the sample's file, asks its references and closes it.
func referencesAt(ctx context.Context, s *lspServer, smp sample) (int, time.Duration, error) {
	u, err := openSample(ctx, s, smp)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	}()
	var result json.RawMessage
	start := time.Now()
	err = s.call(ctx, "textDocument/references", referencesParams(u, smp), &result)
	return countResults(result), time.Since(start), err
}
