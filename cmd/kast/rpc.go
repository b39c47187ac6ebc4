package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// rpcStartTimeout bounds how long `kast rpc` waits for a daemon it started
// to listen (indexing goes on after that; requests wait for it).
const rpcStartTimeout = 30 * time.Second

func newRPCCmd(g *globalFlags, exit *int) *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "rpc METHOD [PARAMS]",
		Short: "Send one Kast API request to the workspace's daemon, starting it if needed",
		Long: `Send one Kast API request (PARAMS is a JSON object, {} by default) to the
daemon of the workspace (--workspace, else the nearest directory up from here
that has a daemon, else the repository around here), starting 'kast serve'
when none runs.
The result is printed on stdout. On an error the error's data.code and message
are printed on stderr and the exit status is 1.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			params := json.RawMessage("{}")
			if len(args) == 2 {
				params = json.RawMessage(args[1])
				if !json.Valid(params) {
					return fmt.Errorf("PARAMS is not valid JSON: %s", args[1])
				}
			}
			d, err := findOrStartDaemon(workspace, g.logLevel)
			if err != nil {
				return err
			}
			resp, err := rpcCall(d, args[0], params)
			if err != nil {
				return err
			}
			if resp.Error != nil {
				var data struct {
					Code string `json:"code"`
				}
				_ = json.Unmarshal(resp.Error.Data, &data)
				if data.Code == "" {
					data.Code = fmt.Sprint(resp.Error.Code)
				}
				fmt.Fprintf(os.Stderr, "%s: %s\n", data.Code, resp.Error.Message)
				*exit = 1
				return nil
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", resp.Result)
			return err
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: the nearest with a daemon, else the nearest folder with a project marker)")
	cmd.Flags().StringVar(&workspace, "root", "", "the same as --workspace")
	return cmd
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// rpcCall sends one request on a new connection and reads its one reply line.
func rpcCall(d descriptor, method string, params json.RawMessage) (*rpcResponse, error) {
	network := "unix"
	if d.Transport == "tcp" {
		network = "tcp"
	}
	c, err := net.Dial(network, d.Address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if d.Token != "" {
		hello, _ := json.Marshal(map[string]string{"token": d.Token})
		req = append(append(hello, '\n'), req...)
	}
	if _, err := c.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(c, 1<<20)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the reply: %v", err)
	}
	var resp rpcResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("malformed reply: %v", err)
	}
	return &resp, nil
}

// findOrStartDaemon returns a live daemon's descriptor for the workspace,
// starting one in the background when there is none, and waiting for one
// that is restarting.
func findOrStartDaemon(workspace, logLevel string) (descriptor, error) {
	dir, err := runtimeDir()
	if err != nil {
		return descriptor{}, err
	}
	root := workspace
	if root == "" {
		cwd, err := daemonRoot(".")
		if err != nil {
			return descriptor{}, err
		}
		for p := cwd; root == ""; p = filepath.Dir(p) {
			d, up, running := live(descriptorPath(dir, p))
			if !up && !running {
				d, up = kastDaemon(p)
			}
			switch {
			case up:
				return d, nil
			case running:
				root = p
			case filepath.Dir(p) == p:
				// None runs: start one for the project around here.
				if root, err = workspaceRoot("", cwd); err != nil {
					return descriptor{}, err
				}
			}
		}
	}
	if root, err = daemonRoot(root); err != nil {
		return descriptor{}, err
	}
	d, up, running := live(descriptorPath(dir, root))
	if !up && !running {
		d, up = kastDaemon(root)
	}
	if up {
		return d, nil
	}
	if !running {
		if err := startDaemon(dir, root, logLevel); err != nil {
			return descriptor{}, err
		}
	}
	deadline := time.Now().Add(rpcStartTimeout)
	for time.Now().Before(deadline) {
		d, up, running := live(descriptorPath(dir, root))
		if up {
			return d, nil
		}
		if !running && d.PID > 0 {
			// The daemon we waited for (restarting) died: start another.
			if err := startDaemon(dir, root, logLevel); err != nil {
				return descriptor{}, err
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return descriptor{}, fmt.Errorf("the daemon for %s did not start within %s; see %s", root, rpcStartTimeout, daemonLog(dir, root))
}

// live reads a descriptor and reports whether its daemon answers (up) or
// its process still runs (a restart); a dead one's descriptor is removed.
func live(path string) (d descriptor, up, running bool) {
	d, err := readDescriptor(path)
	if err != nil {
		return d, false, false
	}
	network := "unix"
	if d.Transport == "tcp" {
		network = "tcp"
	}
	if c, err := net.DialTimeout(network, d.Address, time.Second); err == nil {
		c.Close()
		return d, true, true
	}
	if processAlive(d.PID) {
		return d, false, true
	}
	os.Remove(path)
	return d, false, false
}

// kastDaemon returns a daemon of Kast's registry for root that answers: a
// Kast daemon (or a kast one whose own descriptor is gone).
func kastDaemon(root string) (descriptor, bool) {
	for _, e := range registeredDaemons(root) {
		if c, err := net.DialTimeout("unix", e.SocketPath, time.Second); err == nil {
			c.Close()
			return descriptor{WorkspaceRoot: e.WorkspaceRoot, BackendName: e.BackendName, BackendVersion: e.BackendVersion,
				Transport: "uds", Address: e.SocketPath, PID: e.PID, SchemaVersion: e.SchemaVersion}, true
		}
	}
	return descriptor{}, false
}

func daemonLog(dir, root string) string {
	return filepath.Join(dir, "kast-"+workspaceKey(root)+".log")
}

// startDaemon runs `kast serve` for root in its own session, detached from
// this process, logging to the runtime dir.
func startDaemon(dir, root, logLevel string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(daemonLog(dir, root), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--log-level", logLevel, "serve", "--workspace", root)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
