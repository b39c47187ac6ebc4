package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
)

// descriptor tells `kast rpc` where a workspace's daemon listens. It is
// written 0600 in a 0700 directory: it carries the TCP token.
type descriptor struct {
	WorkspaceRoot  string `json:"workspaceRoot"`
	BackendName    string `json:"backendName"`
	BackendVersion string `json:"backendVersion"`
	Transport      string `json:"transport"` // "uds" or "tcp"
	Address        string `json:"address"`   // socket path or host:port
	Token          string `json:"token,omitempty"`
	PID            int    `json:"pid"`
	SchemaVersion  int    `json:"schemaVersion"`
}

// runtimeDir holds sockets and descriptors: $XDG_RUNTIME_DIR/kast, else the
// user cache dir's kast/run.
func runtimeDir() (string, error) {
	dir, err := runtimeDirPath()
	if err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// runtimeDirPath is runtimeDir without creating it, for lookups.
func runtimeDirPath() (string, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" {
		dir = filepath.Join(dir, "kast")
	} else {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "kast", "run")
	}
	return dir, nil
}

// workspaceKey names a workspace's socket and descriptor.
func workspaceKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:6])
}

func descriptorPath(dir, root string) string {
	return filepath.Join(dir, "kast-"+workspaceKey(root)+".json")
}

// daemonRoot is a workspace root as daemons are keyed by: absolute, with
// symlinks resolved.
func daemonRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Clean(abs), nil
}

func newServeCmd(g *globalFlags) *cobra.Command {
	var workspace, listen, token string
	var stdio bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the Kast analysis daemon for one workspace",
		Long: `Run the Kast API daemon (line-delimited JSON-RPC 2.0) for one workspace; all
its clients share one index. By default it listens on a unix socket only this
user can open and writes a descriptor so that 'kast rpc' finds it. --listen
tcp:127.0.0.1:PORT listens on loopback TCP instead: each connection must first
send the line {"token":"..."} (--token, else a random one, written to the
descriptor). --stdio serves one client on stdin and stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			startAutoPrune(logger) // not waited for: exit stays prompt
			root, err := workspaceRoot(workspace, ".")
			if err != nil {
				return err
			}
			if root, err = daemonRoot(root); err != nil {
				return err
			}
			d := &daemon{root: root, logger: logger, host: newServerHost(cmd.Context(), logger)}
			if stdio {
				return d.serveStdio()
			}
			return d.serve(cmd.Context(), listen, token)
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: the nearest folder with .git, go.mod, package.json or another project marker)")
	cmd.Flags().StringVar(&workspace, "root", "", "the same as --workspace")
	cmd.Flags().BoolVar(&stdio, "stdio", false, "serve one client on stdin/stdout")
	cmd.Flags().StringVar(&listen, "listen", "", "unix:PATH or tcp:127.0.0.1:PORT (default: a unix socket in the runtime dir)")
	cmd.Flags().StringVar(&token, "token", "", "token TCP clients must send first (default: random)")
	return cmd
}

type daemon struct {
	root   string
	logger *slog.Logger
	host   *host.Host

	stop    context.CancelFunc
	mu      sync.Mutex
	restart bool
}

// lifecycle runs runtime/shutdown and runtime/restart once the reply has
// been written.
func (d *daemon) lifecycle(ctx context.Context, action string) {
	d.mu.Lock()
	d.restart = action == "RESTART"
	d.mu.Unlock()
	server.AfterReply(ctx, d.stop)
}

// newServer serves the Kast API. endWait is how long, once a client's input
// ends, its running calls may take to answer (server.Options.EndOfInputWait).
func (d *daemon) newServer(endWait time.Duration) (*server.Server, func(), error) {
	entry, release, err := handlers.KastDaemon(d.host, d.root, d.lifecycle)
	if err != nil {
		return nil, nil, err
	}
	opts := entry.Options(kastVersion(), d.logger)
	opts.EndOfInputWait = endWait
	return server.New(opts), release, nil
}

// serveStdio serves one client on stdin and stdout until its input ends.
// A one-shot client (`printf '...' | kast serve --stdio`) closes its input
// before reading the answers, so every call read then still answers; a
// notification expects no answer and is not waited for.
func (d *daemon) serveStdio() error {
	ctx, stop := context.WithCancel(context.Background())
	d.stop = stop
	srv, release, err := d.newServer(-1)
	if err != nil {
		return err
	}
	defer release()
	out := os.Stdout
	os.Stdout = os.Stderr
	conn := srv.Serve(ctx, stdioConn{os.Stdin, out})
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return nil
}

func (d *daemon) serve(ctx context.Context, listen, token string) error {
	dir, err := runtimeDir()
	if err != nil {
		return err
	}
	if listen == "" {
		listen = "unix:" + filepath.Join(dir, "kast-"+workspaceKey(d.root)+".sock")
	}
	network, address, err := parseListen(listen)
	if err != nil {
		return err
	}
	if network == "tcp" && token == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	ln, err := listenPrivate(network, address)
	if err != nil {
		return err
	}
	defer ln.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	d.stop = stop
	srv, release, err := d.newServer(0)
	if err != nil {
		return err
	}
	defer release()

	desc := descriptor{WorkspaceRoot: d.root, BackendName: "kast-go", BackendVersion: kastVersion(), Transport: "uds",
		Address: ln.Addr().String(), PID: os.Getpid(), SchemaVersion: 3}
	if network == "tcp" {
		desc.Transport, desc.Token = "tcp", token
	}
	descPath := descriptorPath(dir, d.root)
	if err := writeDescriptor(descPath, desc); err != nil {
		return err
	}
	defer removeDescriptor(descPath, desc.PID)
	if network == "unix" {
		// Kast's own CLI and skills find daemons through its registry.
		entry := registryEntry{WorkspaceRoot: d.root, BackendName: desc.BackendName, BackendVersion: desc.BackendVersion,
			Transport: "uds", SocketPath: desc.Address, PID: desc.PID, SchemaVersion: desc.SchemaVersion}
		if err := registerDaemon(entry); err != nil {
			d.logger.Warn("cannot register in Kast's daemon registry", "err", err)
		} else {
			defer unregisterDaemon(entry)
		}
	}

	d.logger.Info("kast serve listening", "workspace", d.root, "network", network, "address", desc.Address)
	err = acceptUntilDone(ctx, ln, func(ctx context.Context, c net.Conn) {
		rwc := io.ReadWriteCloser(c)
		if network == "tcp" {
			if rwc = authenticate(c, token); rwc == nil {
				return
			}
		}
		srv.Serve(ctx, rwc)
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	restart := d.restart
	d.mu.Unlock()
	if restart {
		ln.Close()
		return d.reexec()
	}
	return nil
}

// reexec replaces the process with a fresh daemon with the same arguments.
// The descriptor stays (same pid), so clients wait for the new one rather
// than start another; it takes over the socket and rewrites the descriptor.
func (d *daemon) reexec() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return syscall.Exec(exe, os.Args, os.Environ())
}

// Limits on what an unauthenticated TCP client can make kast hold: the
// token line must come whole within maxHelloBytes and helloDeadline.
const (
	maxHelloBytes = 4 << 10
	helloDeadline = 10 * time.Second
)

// authenticate reads the token line a TCP client sends first; a wrong or
// missing token, a first line over maxHelloBytes, or none within
// helloDeadline gets Kast's UNAUTHORIZED error and the connection closed,
// having buffered at most maxHelloBytes.
func authenticate(c net.Conn, token string) io.ReadWriteCloser {
	br := bufio.NewReaderSize(c, maxHelloBytes)
	_ = c.SetReadDeadline(time.Now().Add(helloDeadline))
	line, err := br.ReadSlice('\n')
	_ = c.SetReadDeadline(time.Time{})
	var hello struct {
		Token string `json:"token"`
	}
	if err != nil || json.Unmarshal(line, &hello) != nil || subtle.ConstantTimeCompare([]byte(hello.Token), []byte(token)) != 1 {
		msg := `This daemon requires a token: send {"token":"..."} as the first line`
		if err == bufio.ErrBufferFull {
			msg = fmt.Sprintf(`This daemon requires a token: the first line must be {"token":"..."}, within %d bytes`, maxHelloBytes)
		}
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32401, "message": msg,
			"data": map[string]any{"schemaVersion": 3, "requestId": "", "code": "UNAUTHORIZED", "message": msg, "retryable": false, "details": map[string]string{}}}})
		_, _ = c.Write(append(resp, '\n'))
		c.Close()
		return nil
	}
	return struct {
		io.Reader
		io.Writer
		io.Closer
	}{br, c, c}
}

// writeDescriptor writes atomically, so a reader never sees half a file.
func writeDescriptor(path string, d descriptor) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// removeDescriptor removes the descriptor if it is still this process's: a
// newer daemon may have replaced it.
func removeDescriptor(path string, pid int) {
	if d, err := readDescriptor(path); err == nil && d.PID == pid {
		os.Remove(path)
	}
}

func readDescriptor(path string) (descriptor, error) {
	var d descriptor
	b, err := os.ReadFile(path)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%s: %v", path, err)
	}
	if d.Address == "" {
		return d, errors.New(path + ": no address")
	}
	return d, nil
}
