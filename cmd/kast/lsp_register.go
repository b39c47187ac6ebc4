package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/kast-dev/kast/analysis/host"
)

// A listening language server (`kast lsp --listen`) holds each workspace
// its clients open in one warm, watched index, as `kast serve` does. So that
// `kast search` asks it rather than build an index of its own, it leaves a
// descriptor per open root in the runtime dir beside kast serve's, named
// kast-<key>.lsp-<pid>.json: several editors' servers may hold one root,
// and `kast rpc`, which speaks the Kast API without LSP's handshake, never
// reads them. A client (lspCall) sends initialize first.

// lspDescriptor is a daemon descriptor that says it speaks LSP.
type lspDescriptor struct {
	descriptor
	Protocol string `json:"protocol"` // "lsp"
}

// rootsPoll is how often a listening server compares the roots it holds
// with the descriptors it wrote.
const rootsPoll = 250 * time.Millisecond

func lspDescriptorPath(dir, root string, pid int) string {
	return filepath.Join(dir, fmt.Sprintf("kast-%s.lsp-%d.json", workspaceKey(root), pid))
}

// lspDescriptors lists the descriptors of language servers holding root.
func lspDescriptors(dir, root string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "kast-"+workspaceKey(root)+".lsp-*.json"))
	return paths
}

// registerLSPRoots keeps a descriptor for every root h holds open, until
// ctx ends; then it removes them and returns.
func registerLSPRoots(ctx context.Context, h *host.Host, network, address string, logger *slog.Logger) {
	dir, err := runtimeDir()
	if err != nil {
		logger.Warn("cannot register for kast search: no runtime dir", "err", err)
		return
	}
	transport := "uds"
	if network == "tcp" {
		transport = "tcp"
	}
	pid := os.Getpid()
	written := map[string]string{} // root → its descriptor
	update := func(roots []string) {
		held := map[string]bool{}
		for _, root := range roots {
			held[root] = true
			if _, ok := written[root]; ok {
				continue
			}
			key, err := daemonRoot(root) // the CLI's spelling of the root
			if err != nil {
				continue
			}
			path := lspDescriptorPath(dir, key, pid)
			d := lspDescriptor{descriptor{WorkspaceRoot: root, BackendName: "kast-go", BackendVersion: kastVersion(),
				Transport: transport, Address: address, PID: pid, SchemaVersion: 3}, "lsp"}
			b, _ := json.MarshalIndent(d, "", "  ")
			if err := writeFileAtomic(path, b); err != nil {
				logger.Warn("cannot register for kast search", "root", root, "err", err)
				continue
			}
			written[root] = path
		}
		for root, path := range written {
			if !held[root] {
				os.Remove(path)
				delete(written, root)
			}
		}
	}
	tick := time.NewTicker(rootsPoll)
	defer tick.Stop()
	for {
		update(h.Roots())
		select {
		case <-ctx.Done():
			update(nil)
			return
		case <-tick.C:
		}
	}
}

// lspCall sends one request to a language server on a new connection:
// initialize (no workspace: the server holds the roots already), then the
// request; it returns the request's reply. Notifications and requests the
// server sends meanwhile are passed over.
func lspCall(d descriptor, method string, params json.RawMessage) (*rpcResponse, error) {
	network := "unix"
	if d.Transport == "tcp" {
		network = "tcp"
	}
	c, err := net.DialTimeout(network, d.Address, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, 1<<20)
	send := func(msg map[string]any) error {
		b, _ := json.Marshal(msg)
		_, err := c.Write(append(b, '\n'))
		return err
	}
	await := func(id int) (*rpcResponse, error) {
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("reading the reply: %v", err)
			}
			var msg struct {
				ID     *int    `json:"id"`
				Method *string `json:"method"`
				rpcResponse
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				return nil, fmt.Errorf("malformed reply: %v", err)
			}
			if msg.Method == nil && msg.ID != nil && *msg.ID == id {
				return &msg.rpcResponse, nil
			}
		}
	}
	init := map[string]any{"processId": os.Getpid(), "rootUri": nil, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "kast search", "version": kastVersion()}}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}); err != nil {
		return nil, err
	}
	resp, err := await(1)
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return resp, nil
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": method, "params": params}); err != nil {
		return nil, err
	}
	return await(2)
}
