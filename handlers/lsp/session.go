package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/storage/indexer"
)

// session is one connection's language-server state: its workspace roots,
// the engine session layering open documents over their indexes, and the
// background work (indexing, reindexing saved files, pushing diagnostics).
type session struct {
	l       *LSP
	conn    *server.Conn
	engine  *workspace.Session
	pending []string // roots named by initialize, opened on initialized

	ctx    context.Context // cancelled when the session stops
	cancel context.CancelFunc
	wg     sync.WaitGroup
	jobs   chan func(context.Context) // reindexing, in order

	mu       sync.Mutex
	roots    map[string]func()          // root → stops watching its background passes
	indexing map[string]<-chan struct{} // root → closed when indexed
	timers   map[string]*time.Timer     // uri → pending diagnostics
	checking map[string]*diagnosing     // uri → diagnostics being worked out
	checks   toolchainChecks            // the languages' own checks of open documents (checks.go)

	// libsPending counts roots whose libraries are still being found or
	// indexed: kast.status says the libraries are settled at zero.
	libsPending int
}

// diagnosticDelay lets a burst of keystrokes settle before diagnostics are
// recomputed and pushed.
const diagnosticDelay = 50 * time.Millisecond

// maxDiagnosticWait bounds how long diagnostics wait for the requests
// running to end (see publish).
const maxDiagnosticWait = time.Second

// session returns the session of the request's connection.
func (l *LSP) session(ctx context.Context) *session {
	conn := server.ConnOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.sessions[conn]; ok {
		return s
	}
	s := &session{l: l, conn: conn, engine: workspace.NewSession(), jobs: make(chan func(context.Context), 256),
		roots: map[string]func(){}, indexing: map[string]<-chan struct{}{}, timers: map[string]*time.Timer{},
		checking: map[string]*diagnosing{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	l.sessions[conn] = s
	s.wg.Add(1)
	go s.work()
	if conn != nil {
		lent := l.pool.AddOpenTexts(openTexts(conn))
		l.open.Add(1)
		go func() {
			defer l.open.Done()
			<-conn.Done()
			lent()
			s.close()
		}()
	}
	return s
}

func (s *session) work() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case job := <-s.jobs:
			job(s.ctx)
		}
	}
}

// stop cancels background work.
func (s *session) stop() {
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.timers {
		t.Stop()
	}
}

// close stops the session, waits for its work and releases its roots.
func (s *session) close() {
	s.stop()
	s.wg.Wait()
	s.l.mu.Lock()
	delete(s.l.sessions, s.conn)
	s.l.mu.Unlock()
	s.mu.Lock()
	for _, unwatch := range s.roots {
		unwatch()
	}
	s.mu.Unlock()
	for _, w := range s.engine.Roots() {
		s.engine.RemoveRoot(w.Root)
		s.l.pool.Release(w.Root)
	}
}

// addRoot opens a root's index, which the host refreshes in the background
// (once for the process) and then resolves its references; this connection
// watches both with $/progress. Queries answer from what is indexed meanwhile.
func (s *session) addRoot(root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.roots[root]; ok || s.ctx.Err() != nil {
		return
	}
	ws, err := s.l.pool.Acquire(root)
	if err != nil {
		s.logf(protocol.MessageTypeError, "kast: cannot open the index of %s: %v", root, err)
		return
	}
	s.engine.AddRoot(ws)
	s.logf(protocol.MessageTypeInfo, "kast: workspace %s, index %s", root, indexPlace(ws))
	if n := ws.Notice(); n != "" { // the host has logged it already: tell the client only
		_ = s.conn.LogMessage(context.WithoutCancel(s.ctx), protocol.MessageTypeWarning, "kast: "+n)
	}
	s.roots[root] = s.l.pool.Watch(root, s.progressWatcher(root))
	indexed, err := s.l.pool.Index(root)
	if err != nil { // the root was open a moment ago: only a closing race gets here
		s.logf(protocol.MessageTypeError, "kast: cannot index %s: %v", root, err)
		return
	}
	s.indexing[root] = indexed
	if s.l.pool.Libraries {
		s.wg.Add(1)
		s.libsPending++
		go s.indexLibraries(root, indexed)
	}
}

// progressWatcher shows the root's background passes as $/progress. Progress
// starts with the first file to read, so a warm index (or an empty root)
// shows none.
func (s *session) progressWatcher(root string) *host.Watcher {
	var indexing, resolving *server.Progress
	var lastIndexed, lastResolved uint32
	return &host.Watcher{
		Indexing: func(pr indexer.Progress) {
			if pr.Total == 0 {
				return
			}
			if indexing == nil {
				indexing = s.conn.BeginProgress(s.ctx, nil, "kast: indexing", root, false)
			}
			if pct := uint32(pr.Done * 100 / pr.Total); pct != lastIndexed {
				lastIndexed = pct
				indexing.Report(s.ctx, fmt.Sprintf("%d/%d files", pr.Done, pr.Total), pct)
			}
		},
		Indexed: func(totals indexer.Totals, err error) {
			if err != nil {
				indexing.End(s.ctx, "stopped: "+err.Error())
				if s.ctx.Err() == nil {
					s.logf(protocol.MessageTypeWarning, "kast: indexing %s failed: %v", root, err)
				}
				return
			}
			indexing.End(s.ctx, fmt.Sprintf("%d files indexed", totals.Files))
			if totals.Files == 0 {
				return // an empty root: the workspace line said all there is
			}
			s.logf(protocol.MessageTypeInfo, "kast: %s indexed: %d files, %d definitions, %d references (%d parsed, %d unchanged) in %d ms",
				root, totals.Files, totals.Defs, totals.Refs, totals.Extracted, totals.Unchanged, totals.Elapsed.Milliseconds())
		},
		Resolving: func(done, total int) {
			if resolving == nil {
				lastResolved = 0
				resolving = s.conn.BeginProgress(s.ctx, nil, "kast: resolving references", root, false)
			}
			if pct := uint32(done * 100 / max(total, 1)); pct != lastResolved {
				lastResolved = pct
				resolving.Report(s.ctx, fmt.Sprintf("%d/%d files", done, total), pct)
			}
		},
		Resolved: func(n int, err error) {
			if err != nil {
				resolving.End(s.ctx, "stopped: "+err.Error())
				if s.ctx.Err() == nil {
					s.logf(protocol.MessageTypeWarning, "kast: resolving references in %s failed: %v", root, err)
				}
			} else {
				resolving.End(s.ctx, fmt.Sprintf("%d files resolved", n))
			}
			resolving = nil
		},
	}
}

// removeRoot stops watching a root and releases its index.
func (s *session) removeRoot(root string) {
	s.mu.Lock()
	unwatch, ok := s.roots[root]
	delete(s.roots, root)
	delete(s.indexing, root)
	s.mu.Unlock()
	if !ok {
		return
	}
	unwatch()
	if s.engine.RemoveRoot(root) != nil {
		go s.l.pool.Release(root)
	}
}

// waitIndexed waits until every root's first refresh has ended.
func (s *session) waitIndexed(ctx context.Context) error {
	s.mu.Lock()
	var chans []<-chan struct{}
	for _, c := range s.indexing {
		chans = append(chans, c)
	}
	s.mu.Unlock()
	for _, c := range chans {
		select {
		case <-c:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// rootPaths lists the session's workspace roots.
func (s *session) rootPaths() []string {
	var roots []string
	for _, w := range s.engine.Roots() {
		roots = append(roots, w.Root)
	}
	return roots
}

// reindex queues a file changed or deleted on disk for reindexing. The path
// is the client's, so it goes through the confinement rule: a file kast may
// not read is dropped from the index instead (its folder may have become a
// link out of the workspace since it was indexed).
func (s *session) reindex(path string, deleted bool) {
	ws := s.engine.Owner(path)
	if !deleted {
		real, err := confine.Check(s.rootPaths(), path, confine.Read)
		switch {
		case err == nil:
			path, ws = real, s.engine.Owner(real)
		case ws != nil:
			s.logf(protocol.MessageTypeWarning, "kast: not reading %s: %v", path, err)
			deleted = true
		}
	}
	if ws == nil || !workspace.Supported(path) {
		return
	}
	job := func(ctx context.Context) {
		err := s.l.pool.Update(ws.Root, func(ws *workspace.Workspace) error {
			src, err := os.ReadFile(path)
			if deleted || errors.Is(err, fs.ErrNotExist) {
				return ws.Remove(path)
			}
			if err != nil {
				return err
			}
			info, err := os.Stat(path)
			if err != nil {
				return err
			}
			return ws.Reindex(ctx, path, src, info.ModTime())
		})
		if err != nil && ctx.Err() == nil {
			s.logf(protocol.MessageTypeWarning, "kast: reindexing %s failed: %v", path, err)
		}
		s.l.pool.ScheduleUses(ws.Root)
	}
	select {
	case s.jobs <- job:
	case <-s.ctx.Done():
	}
}

// diagnosingHook, set by tests only, hears each semantic check start,
// with its context.
var diagnosingHook func(ctx context.Context)

// diagnosing is the work on one document's diagnostics under way.
type diagnosing struct{ cancel context.CancelFunc }

// openedDiagnosticDelay is how long a document just opened stays open
// before its diagnostics are worked out: an editor opens documents for a
// glance (a peek, a hover's preview, an agent's read) and closes them
// again, and working out theirs cost a cold start as much CPU as its
// reference queries. Someone who opens a file to read it does not see the
// difference.
const openedDiagnosticDelay = 300 * time.Millisecond

// diagnose schedules pushing the diagnostics of an open document.
func (s *session) diagnose(docURI string) { s.diagnoseAfter(docURI, diagnosticDelay) }

func (s *session) diagnoseAfter(docURI string, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.timers[docURI]; ok {
		t.Stop()
	}
	s.stopDiagnosingLocked(docURI) // of a version now stale
	s.timers[docURI] = time.AfterFunc(delay, func() { s.publish(docURI) })
}

// stopDiagnosingLocked cancels the diagnostics under way of a document
// closed or changed: a semantic check resolves every reference of the
// file, and during a cold start, when each took seconds, checks of closed
// documents held a third of the live heap and as much CPU as the
// reference queries.
func (s *session) stopDiagnosingLocked(docURI string) {
	if d := s.checking[docURI]; d != nil {
		d.cancel()
		delete(s.checking, docURI)
	}
}

func (s *session) publish(docURI string) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	d := &diagnosing{cancel: cancel}
	s.mu.Lock()
	s.stopDiagnosingLocked(docURI)
	s.checking[docURI] = d
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.checking[docURI] == d {
			delete(s.checking, docURI)
		}
		s.mu.Unlock()
	}()
	// Requests first: an editor waits on them, not on diagnostics, and a
	// document closed meanwhile needs none.
	s.engine.AwaitRequests(ctx, maxDiagnosticWait)
	if ctx.Err() != nil {
		return
	}
	docs := documents(s.conn).Snapshot()
	doc, ok := docs.Document(docURI)
	if !ok {
		return
	}
	path := uriPath(uri.URI(docURI))
	facts := s.engine.Facts(workspace.Doc{Path: path, Version: doc.Version, Text: doc.Text})
	if facts == nil {
		return
	}
	diags := diagnostics(facts, doc, encoding(s.conn))
	if len(facts.Errors) == 0 { // toolchains check what parses: on the rest they only repeat the syntax error
		var toolchain []protocol.Diagnostic
		if found, ok := s.checks.cached(doc); ok {
			toolchain = toolchainDiagnostics(found, doc, encoding(s.conn))
		} else {
			s.startChecks(doc, func() { s.publish(docURI) })
		}
		if diagnosingHook != nil {
			diagnosingHook(ctx)
		}
		diags = append(diags, semanticDiagnostics(ctx, s.openSnapshot(docs), path, doc, encoding(s.conn), toolchain)...)
		diags = append(diags, toolchain...)
	}
	if ctx.Err() != nil {
		return // closed or changed meanwhile: what was found may be partial
	}
	err := s.conn.Client().PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{
		URI: uri.URI(docURI), Version: protocol.NewOptional(doc.Version), Diagnostics: diags,
	})
	if err != nil {
		s.conn.Logger().Debug("publishing diagnostics failed", "uri", docURI, "err", err)
	}
}

// clearDiagnostics withdraws a closed document's diagnostics.
func (s *session) clearDiagnostics(docURI string) {
	s.mu.Lock()
	if t, ok := s.timers[docURI]; ok {
		t.Stop()
		delete(s.timers, docURI)
	}
	s.stopDiagnosingLocked(docURI)
	s.mu.Unlock()
	s.checks.forget(docURI)
	_ = s.conn.Client().PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: uri.URI(docURI), Diagnostics: []protocol.Diagnostic{}})
}

// logf tells the client (window/logMessage) and kast's own log: warnings and
// errors at their level, information at debug, so an editor's log of kast's
// stderr holds only what a user should see.
func (s *session) logf(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	switch typ {
	case protocol.MessageTypeError:
		s.conn.Logger().Error(msg)
	case protocol.MessageTypeWarning:
		s.conn.Logger().Warn(msg)
	default:
		s.conn.Logger().Debug(msg)
	}
	_ = s.conn.LogMessage(context.WithoutCancel(s.ctx), typ, msg)
}
