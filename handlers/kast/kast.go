package kast

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server"
)

// Kast wire constants (Kast v0.7, schemaVersion 3).
const (
	kastSchemaVersion = 3
	kastBackendName   = "kast-go"
	kastMaxResults    = 500
)

// Kast's error codes: -32000 − the HTTP status of the API error.
const (
	kastValidation     jsonrpc2.Code = -32400
	kastNotFound       jsonrpc2.Code = -32404
	kastConflict       jsonrpc2.Code = -32409
	kastPartialFailure jsonrpc2.Code = -32500
	kastNotSupported   jsonrpc2.Code = -32501
)

// Service serves the Kast family over the process's workspaces. A daemon
// fixes one root; on the LSP connection the root is the open workspace that
// holds the request's file, else the first one open, else the working
// directory.
type Service struct {
	pool      *host.Host
	fixedRoot string
	version   string
	// lifecycle runs runtime/shutdown and runtime/restart after the reply;
	// nil means the host does not support them.
	lifecycle func(ctx context.Context, action string)

	mu    sync.Mutex
	roots map[string]*kastRoot

	pages         pageStore      // page tokens (pages.go)
	handleKey     [32]byte       // signs selector handles (exact.go)
	mutations     *mutationQueue // mutation/* (mutation.go)
	continuations continuations  // raw/workspace-files-continuation
}

// kastRoot is one root's index, held for the process.
type kastRoot struct {
	ws    *workspace.Workspace
	ready <-chan struct{} // closed when the host's first refresh of it ended
}

// Options configures the Kast projection.
type Options struct {
	// Root fixes the workspace root, as the `kast serve` daemon does; "" picks
	// the open root that holds each request's file.
	Root string
	// Lifecycle runs runtime/shutdown ("SHUTDOWN") and runtime/restart
	// ("RESTART") after the reply; nil answers them CAPABILITY_NOT_SUPPORTED.
	Lifecycle func(ctx context.Context, action string)
}

// New returns the Kast projection over the host's workspaces.
func New(h *host.Host, opts Options) *Service {
	k := &Service{pool: h, fixedRoot: opts.Root, version: h.Version, lifecycle: opts.Lifecycle, roots: map[string]*kastRoot{},
		mutations: newMutationQueue()}
	_, _ = rand.Read(k.handleKey[:])
	return k
}

// Daemon returns the Kast projection of `kast serve`, bound to one workspace
// root, and starts indexing it now, so runtime/status reports progress from
// the start. release closes the root's index once its first refresh has
// ended.
func Daemon(h *host.Host, root string, lifecycle func(ctx context.Context, action string)) (k *Service, release func(), err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	k = New(h, Options{Root: filepath.Clean(abs), Lifecycle: lifecycle})
	kr, err := k.open(k.fixedRoot)
	if err != nil {
		return nil, nil, err
	}
	return k, func() {
		<-kr.ready
		k.pool.Release(k.fixedRoot)
	}, nil
}

// open returns the root's state, opening its index on first use; the host
// refreshes it in the background (once for the process) and then resolves
// and stores its references, so reference queries read them (requests
// meanwhile resolve as before). The index stays open for the process: Kast
// clients come and go one request at a time.
func (k *Service) open(root string) (*kastRoot, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.roots[root]; ok {
		return r, nil
	}
	ws, err := k.pool.Acquire(root)
	if err != nil {
		return nil, err
	}
	ready, err := k.pool.Index(root)
	if err != nil {
		k.pool.Release(root)
		return nil, err
	}
	r := &kastRoot{ws: ws, ready: ready}
	k.roots[root] = r
	return r, nil
}

// rootFor picks the workspace root for a request about path ("" for none).
func (k *Service) rootFor(path string) string {
	if k.fixedRoot != "" {
		return k.fixedRoot
	}
	open := k.pool.Roots()
	best := ""
	for _, root := range open {
		if path != "" && (path == root || strings.HasPrefix(path, root+string(filepath.Separator))) && len(root) > len(best) {
			best = root
		}
	}
	if best != "" {
		return best
	}
	if len(open) > 0 {
		return open[0]
	}
	cwd, _ := os.Getwd()
	return cwd
}

// kastRequest is what one Kast request works with: its root, a snapshot of
// the index (disk content only: Kast offsets and hashes are of the bytes on
// disk) and the texts read so far.
type kastRequest struct {
	ctx   context.Context
	root  string
	kr    *kastRoot
	snap  *workspace.Snapshot
	texts map[string][]byte
	rule  *confine.Rule // the confinement rule over root
}

// request opens the root for path and waits for its first index.
// settleWait bounds how long a request waits for changes on disk to be
// indexed before it answers.
const settleWait = 2 * time.Second

func (k *Service) request(ctx context.Context, path string) (*kastRequest, error) {
	root := k.rootFor(path)
	kr, err := k.open(root)
	if err != nil {
		return nil, err
	}
	select {
	case <-kr.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Changes on disk seen but not yet indexed are taken in first, so no
	// answer shows text a file no longer has; a flood of them is waited for
	// at most settleWait.
	settle, cancel := context.WithTimeout(ctx, settleWait)
	_ = k.pool.Settle(settle, root)
	cancel()
	sess := workspace.NewSession()
	sess.AddRoot(kr.ws)
	return &kastRequest{ctx: ctx, root: root, kr: kr, snap: sess.Snapshot(nil), texts: map[string][]byte{}, rule: confine.New([]string{root})}, nil
}

// confine applies the confinement rule to a path for access (see
// edit.Confine): every path a client names goes through it.
func (r *kastRequest) confine(p string, access confine.Access) (string, error) {
	return edit.Confine(r.rule, p, access)
}

// text returns a file's bytes, read once per request. Index paths pass the
// confinement rule too: a folder swapped for a link since indexing is read
// no further.
func (r *kastRequest) text(path string) ([]byte, error) {
	if t, ok := r.texts[path]; ok {
		return t, nil
	}
	real, err := r.confine(path, confine.Read)
	if err != nil {
		return nil, err
	}
	t, err := os.ReadFile(real)
	if err != nil {
		return nil, &edit.Error{Kind: edit.NotFound, Msg: "File not found: " + path, Details: map[string]string{"filePath": path}}
	}
	r.texts[path] = t
	return t, nil
}

// position validates a FilePosition and returns the path, offset and text.
func (r *kastRequest) position(p *filePosition) (string, int, []byte, error) {
	path, err := r.confine(p.FilePath, confine.Read)
	if err != nil {
		return "", 0, nil, err
	}
	text, err := r.text(path)
	if err != nil {
		return "", 0, nil, err
	}
	if err := edit.CheckOffset(path, text, *p.Offset); err != nil {
		return "", 0, nil, err
	}
	return path, *p.Offset, text, nil
}

// path validates a request path and checks the file exists.
func (r *kastRequest) path(p string) (string, error) {
	path, err := r.confine(p, confine.Read)
	if err != nil {
		return "", err
	}
	_, err = r.text(path)
	return path, err
}

// paramsOptional marks the params of methods that take none: Kast answers
// them without params.
type paramsOptional interface{ paramsOptional() }

// decodeKast decodes params strictly: absent params (where the method takes
// some) and unknown keys are validation errors, as in Kast.
func decodeKast(raw json.RawMessage, v any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		if _, ok := v.(paramsOptional); ok {
			return nil
		}
		return validation("The JSON-RPC request is missing params", nil)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return validation("Invalid request params: "+err.Error(), nil)
	}
	if c, ok := v.(interface{ check() error }); ok {
		return c.check()
	}
	return nil
}

func validation(msg string, details map[string]string) error {
	return &edit.Error{Kind: edit.Validation, Msg: msg, Details: details}
}

func notFound(msg string, details map[string]string) error {
	return &edit.Error{Kind: edit.NotFound, Msg: msg, Details: details}
}

// kastError turns an engine error into Kast's JSON-RPC error, with data an
// ApiErrorResponse.
func kastError(err error) error {
	var ke *edit.Error
	if !errors.As(err, &ke) {
		return err
	}
	code, dataCode := kastValidation, "VALIDATION_ERROR"
	switch ke.Kind {
	case edit.NotFound:
		code, dataCode = kastNotFound, "NOT_FOUND"
	case edit.Conflict:
		code, dataCode = kastConflict, "CONFLICT"
	case edit.PartialFailure:
		code, dataCode = kastPartialFailure, "APPLY_PARTIAL_FAILURE"
	}
	return apiError(code, dataCode, ke.Msg, ke.Details)
}

func apiError(code jsonrpc2.Code, dataCode, msg string, details map[string]string) error {
	if details == nil {
		details = map[string]string{}
	}
	return server.Error(code, dataCode, msg, map[string]any{
		"schemaVersion": kastSchemaVersion, "requestId": requestID(), "message": msg, "retryable": false, "details": details,
	})
}

// requestID is a random UUID: the transport does not pass the JSON-RPC id to
// handlers, and Kast uses one whenever the id is null.
func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// reply encodes a result with encoding/json: nil optionals are omitted
// (omitempty) and defaults written, as Kast's encoder does.
func reply(v any) (json.RawMessage, error) {
	return json.Marshal(v)
}

// method is a Kast methods-table row: params decoded strictly into P (unknown
// keys are VALIDATION_ERROR), the result encoded by reply, errors in Kast's
// shape. Register also serves it under its kast/<camelCase> alias.
func method[P any, R any](name string, class server.Class, h func(ctx context.Context, p *P) (R, error)) server.Spec {
	return server.Request(name, class, func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		p := new(P)
		if err := decodeKast(raw, p); err != nil {
			return nil, kastError(err)
		}
		res, err := h(ctx, p)
		if err != nil {
			return nil, kastError(err)
		}
		return reply(res)
	})
}

// kastAlias is the name Kast's LSP adapter gives a method: "kast/" + the
// first segment + the rest in PascalCase ("raw/call-hierarchy" →
// "kast/rawCallHierarchy").
func kastAlias(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '-' })
	var b strings.Builder
	b.WriteString("kast/")
	for i, p := range parts {
		if i > 0 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	return b.String()
}
func ptr[T any](v T) *T { return &v }
