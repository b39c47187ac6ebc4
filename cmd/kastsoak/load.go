package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// worker is one client's load: editor queries on open documents, Kast
// edits of the files it owns, agent turns and cancelled requests, one at
// a time.
type worker struct {
	c     *client
	st    *stats
	rnd   *rand.Rand
	root  string
	files []string // every file of the copy
	own   []string // the files this worker edits through Kast
	hang  time.Duration
	pause time.Duration

	session string
	turns   int            // in the current session
	open    map[string]int // uri → version
	order   []string       // open uris, oldest first
}

// marker is the line a Kast edit appends to a file and the next one
// removes, so the copy keeps its size.
const marker = "\n// kastsoak\n"

var ident = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// keywords name nothing to look up.
var keywords = map[string]bool{"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true, "if": true,
	"import": true, "interface": true, "map": true, "package": true, "range": true, "return": true, "select": true,
	"struct": true, "switch": true, "type": true, "var": true}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (w *worker) initialize() error {
	params := map[string]any{"processId": os.Getpid(), "rootUri": fileURI(w.root), "capabilities": map[string]any{},
		"workspaceFolders": []any{map[string]string{"uri": fileURI(w.root), "name": "src"}}}
	r, _, err := w.c.request("initialize", params, w.hang)
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("initialize: %s", r.Error.Message)
	}
	if err := w.c.notify("initialized", map[string]any{}); err != nil {
		return err
	}
	return w.newSession()
}

// turnsPerSession is how many turns a client runs in a session before it
// closes it and starts another, as a person starts a new chat: the soak
// then measures what sessions leave behind, not one conversation growing.
const turnsPerSession = 50

// newSession closes the client's session, if any, and creates another.
func (w *worker) newSession() error {
	if w.session != "" {
		r, _, err := w.c.request("sessions/close", map[string]any{"sessionId": w.session}, w.hang)
		if err != nil {
			return err
		}
		if r.Error != nil {
			return fmt.Errorf("sessions/close: %+v", r.Error)
		}
	}
	r, _, err := w.c.request("sessions/create", map[string]any{"workspaceRoot": w.root, "name": w.c.name}, w.hang)
	if err != nil {
		return err
	}
	var created struct {
		ID string `json:"id"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &created) != nil || created.ID == "" {
		return fmt.Errorf("sessions/create: %+v", r.Error)
	}
	w.session, w.turns = created.ID, 0
	return nil
}

// run loops over weighted operations until ctx ends; an error is fatal
// (a hang, a connection gone).
func (w *worker) run(ctx context.Context) error {
	ops := []struct {
		weight int
		do     func() error
	}{
		{14, func() error { return w.query("textDocument/definition") }},
		{10, func() error { return w.query("textDocument/references") }},
		{14, func() error { return w.query("textDocument/hover") }},
		{10, func() error { return w.query("textDocument/completion") }},
		{8, w.workspaceSymbol},
		{6, w.kastReferences},
		{10, w.applyEdit},
		{6, w.didChange},
		{4, w.turn},
		{10, w.cancelled},
	}
	total := 0
	for _, op := range ops {
		total += op.weight
	}
	for ctx.Err() == nil {
		pick := w.rnd.IntN(total)
		for _, op := range ops {
			if pick -= op.weight; pick < 0 {
				if err := op.do(); err != nil {
					return err
				}
				break
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(w.pause):
		}
	}
	return nil
}

// position picks an identifier in a random file, opening the file first as
// an editor would; it returns the file, its text and the identifier's
// byte range.
func (w *worker) position() (string, []byte, []int, error) {
	for range 10 {
		path := w.files[w.rnd.IntN(len(w.files))]
		text, err := os.ReadFile(path)
		if err != nil {
			return "", nil, nil, err
		}
		ids := slices.DeleteFunc(ident.FindAllIndex(text, 2000), func(id []int) bool { return keywords[string(text[id[0]:id[1]])] })
		if len(ids) == 0 {
			continue
		}
		if err := w.ensureOpen(path, text); err != nil {
			return "", nil, nil, err
		}
		return path, text, ids[w.rnd.IntN(len(ids))], nil
	}
	return "", nil, nil, errors.New("no identifiers in ten files")
}

func (w *worker) ensureOpen(path string, text []byte) error {
	uri := fileURI(path)
	if _, ok := w.open[uri]; ok {
		return nil
	}
	if len(w.order) >= 20 {
		oldest := w.order[0]
		w.order = w.order[1:]
		delete(w.open, oldest)
		w.st.note()
		if err := w.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": oldest}}); err != nil {
			return err
		}
	}
	w.open[uri] = 1
	w.order = append(w.order, uri)
	w.st.note()
	return w.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": string(text)}})
}

// lspPosition converts a byte offset to an LSP line and UTF-16 character.
func lspPosition(text []byte, off int) map[string]int {
	line := bytes.Count(text[:off], []byte("\n"))
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	char := 0
	for _, r := range string(text[start:off]) {
		if r == utf8.RuneError {
			char++
			continue
		}
		char += len(utf16.Encode([]rune{r}))
	}
	return map[string]int{"line": line, "character": char}
}

func (w *worker) query(method string) error {
	path, text, id, err := w.position()
	if err != nil {
		return err
	}
	off := id[0]
	if method == "textDocument/completion" {
		off = (id[0] + id[1]) / 2
	}
	params := map[string]any{"textDocument": map[string]string{"uri": fileURI(path)}, "position": lspPosition(text, off)}
	if method == "textDocument/references" {
		params["context"] = map[string]bool{"includeDeclaration": true}
	}
	return w.do(method, method, params)
}

// do sends one request, waits for its answer within the hang bound and
// records it.
func (w *worker) do(kind, method string, params any) error {
	r, took, err := w.c.request(method, params, w.hang)
	if err != nil {
		return err
	}
	w.st.record(kind, r.outcome(), took)
	return nil
}

func (w *worker) workspaceSymbol() error {
	_, text, id, err := w.position()
	if err != nil {
		return err
	}
	name := text[id[0]:id[1]]
	return w.do("workspace/symbol", "workspace/symbol", map[string]string{"query": string(name[:min(len(name), 3)])})
}

// kastReferences asks Kast's raw/references on the same connection.
func (w *worker) kastReferences() error {
	path, _, id, err := w.position()
	if err != nil {
		return err
	}
	return w.do("raw/references", "raw/references", map[string]any{"position": map[string]any{"filePath": path, "offset": id[0]}})
}

// applyEdit appends the marker line to one of the worker's files, or
// removes it; one edit in ten carries a stale hash and must be refused.
func (w *worker) applyEdit() error {
	path := w.own[w.rnd.IntN(len(w.own))]
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	start, end, newText := len(text), len(text), marker
	if bytes.HasSuffix(text, []byte(marker)) {
		start, newText = len(text)-len(marker), ""
	}
	sum := sha256.Sum256(text)
	kind := "raw/apply-edits"
	if w.rnd.IntN(10) == 0 {
		sum = sha256.Sum256(append(text, 'x'))
		kind = "raw/apply-edits (stale)"
	}
	return w.do(kind, "raw/apply-edits", map[string]any{
		"edits":      []any{map[string]any{"filePath": path, "startOffset": start, "endOffset": end, "newText": newText}},
		"fileHashes": []any{map[string]string{"filePath": path, "hash": hex.EncodeToString(sum[:])}},
	})
}

// didChange types a space at the start of an open document, or deletes it.
func (w *worker) didChange() error {
	if len(w.order) == 0 {
		return nil
	}
	uri := w.order[w.rnd.IntN(len(w.order))]
	w.open[uri]++
	v := w.open[uri]
	change := map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": " "}
	if v%2 == 1 {
		change = map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}}, "text": ""}
	}
	w.st.note()
	return w.c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []any{change}})
}

// turn runs one agent turn (a tool call, then an answer) to its end.
func (w *worker) turn() error {
	if w.turns++; w.turns > turnsPerSession {
		if err := w.newSession(); err != nil {
			return err
		}
		w.turns = 1
	}
	r, _, err := w.c.request("turns/start", map[string]any{"sessionId": w.session, "input": "Where are the readers defined?"}, w.hang)
	if err != nil {
		return err
	}
	if r.Error != nil {
		w.st.record("agent turn", r.outcome(), 0)
		return nil
	}
	var turn struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Result, &turn); err != nil || turn.ID == "" {
		return fmt.Errorf("turns/start answered %s", r.Result)
	}
	start := time.Now()
	defer w.c.endTurn(turn.ID)
	select {
	case status := <-w.c.turn(turn.ID):
		w.st.record("agent turn", status, time.Since(start))
		return nil
	case <-w.c.closed:
		return fmt.Errorf("%s: the connection ended during turn %s", w.c.name, turn.ID)
	case <-time.After(w.hang):
		return fmt.Errorf("%s: turn %s: %w (%s)", w.c.name, turn.ID, errHang, w.hang)
	}
}

// cancelled sends a request and cancels it at once: it must still be
// answered, with its result or REQUEST_CANCELLED.
func (w *worker) cancelled() error {
	path, text, id, err := w.position()
	if err != nil {
		return err
	}
	method := "textDocument/references"
	var params any = map[string]any{"textDocument": map[string]string{"uri": fileURI(path)},
		"position": lspPosition(text, id[0]), "context": map[string]bool{"includeDeclaration": true}}
	if w.rnd.IntN(2) == 0 {
		method, params = "workspace/symbol", map[string]string{"query": "e"}
	}
	rid, ca, err := w.c.start(method, params)
	if err != nil {
		return err
	}
	w.st.note()
	if err := w.c.cancel(rid); err != nil {
		return err
	}
	r, err := w.c.wait(rid, ca, w.hang)
	if err != nil {
		return err
	}
	w.st.record(method+" (cancelled)", r.outcome(), time.Since(ca.start))
	return nil
}

// shutdown ends the connection as an editor does.
func (w *worker) shutdown() {
	if _, _, err := w.c.request("shutdown", nil, 10*time.Second); err == nil {
		_ = w.c.notify("exit", nil)
	}
	w.c.close()
}
