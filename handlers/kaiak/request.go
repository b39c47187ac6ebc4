package kaiak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Request states.
const (
	statusProcessing = "processing"
	statusCompleted  = "completed"
	statusFailed     = "failed"
	statusCancelled  = "cancelled"
)

// request is one fix request: its incidents grouped by file, one agent
// turn per file, run in order; its stream goes to the connection that sent
// it.
type request struct {
	svc       *Service
	id        string
	sess      *session
	sessionID string // as the client names the session (a v2 client's own id)
	conn      *server.Conn
	v2        bool // streams kaiak/generate_fix/data rather than kaiak/stream/*
	incidents []Incident
	groups    []group
	migration map[string]any
	createdAt time.Time
	ctx       context.Context // ends when the request is cancelled or timed out
	stop      context.CancelFunc
	done      chan struct{} // closed after request_completed went out

	// sendMu orders the stream: message ids rise in the order sent.
	sendMu    sync.Mutex
	seq       int
	completed bool // request_completed went out

	mu           sync.Mutex
	status       string
	reason       string // why it was cancelled
	turn         *agent.Turn
	processed    int // incidents of the files whose turn completed
	proposals    int
	applied      int
	interactions int
	pending      map[string]*interaction
	answers      []string // the model's final texts
	errs         []string
	finishedAt   time.Time
}

// startRequest validates and registers a fix request; the caller starts its
// work (begin). Errors are the contract's: -32005 for a terminated
// session, -32015 past a limit, -32006 when no provider can run it.
func (s *Service) startRequest(ctx context.Context, ss *session, incidents []Incident, migration map[string]any, v2 bool) (*request, error) {
	ss.mu.Lock()
	terminated, active := ss.terminated, len(ss.active)
	ss.mu.Unlock()
	if terminated {
		return nil, kerr(codeSessionNotReady, map[string]any{"session_id": ss.id}, "session not ready: %s was terminated", ss.id)
	}
	if len(incidents) > MaxIncidents {
		return nil, limitError("incidents", map[string]any{"count": len(incidents), "max": MaxIncidents},
			"incident limit exceeded: the request has %d incidents; the limit is %d per request", len(incidents), MaxIncidents)
	}
	groups, err := groupIncidents(ss.workspace, incidents)
	if err != nil {
		return nil, err
	}
	if active >= MaxConcurrentRequests {
		return nil, limitError("concurrentFixRequests", map[string]any{"session_id": ss.id, "max": MaxConcurrentRequests},
			"concurrent fix request limit exceeded: session %s has %d unfinished fix requests; the limit is %d per session", ss.id, active, MaxConcurrentRequests)
	}
	if len(groups) > 0 {
		var perr error
		if ss.cfg.provider != "" || ss.cfg.model != "" {
			_, perr = s.mgr.ProviderWith(ss.cfg.provider, ss.cfg.model)
		} else {
			_, perr = s.mgr.Provider()
		}
		if perr != nil {
			return nil, kerr(codeAgentInitFailed, nil, "agent initialization failed: %s", s.rt.Secrets().String(perr.Error()))
		}
	}
	rctx, stop := context.WithCancel(context.Background())
	if ss.cfg.timeout > 0 {
		rctx, stop = context.WithTimeout(context.Background(), ss.cfg.timeout)
	}
	r := &request{svc: s, id: "req-" + newUUID(), sess: ss, sessionID: ss.id, conn: server.ConnOf(ctx), v2: v2, incidents: incidents, groups: groups,
		migration: migration, createdAt: time.Now(), ctx: rctx, stop: stop, done: make(chan struct{}), status: statusProcessing,
		pending: map[string]*interaction{}}
	ss.mu.Lock()
	if ss.terminated {
		ss.mu.Unlock()
		stop()
		return nil, kerr(codeSessionNotReady, map[string]any{"session_id": ss.id}, "session not ready: %s was terminated", ss.id)
	}
	if len(ss.active) >= MaxConcurrentRequests {
		ss.mu.Unlock()
		stop()
		return nil, limitError("concurrentFixRequests", map[string]any{"session_id": ss.id, "max": MaxConcurrentRequests},
			"concurrent fix request limit exceeded: session %s has %d unfinished fix requests; the limit is %d per session", ss.id, len(ss.active), MaxConcurrentRequests)
	}
	ss.active = append(ss.active, r)
	ss.updatedAt = r.createdAt
	ss.mu.Unlock()
	s.mu.Lock()
	s.requests[r.id] = r
	s.mu.Unlock()
	s.watch(r.conn)
	return r, nil
}

func (s *Service) fixGenerate(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	ss, err := s.sessionParam(o)
	if err != nil {
		return nil, err
	}
	items, ok, err := o.list("", "incidents")
	if err != nil {
		return nil, err
	}
	var incidents []Incident
	switch {
	case !ok && len(ss.incidents) > 0:
		incidents = ss.incidents // given at session/create
	case !ok:
		return nil, invalid(map[string]any{"field": "incidents"}, "invalid params: incidents is required")
	case len(items) == 0:
		return nil, invalid(map[string]any{"field": "incidents"}, "invalid params: incidents is empty: give at least one incident")
	default:
		if incidents, err = parseIncidents(items); err != nil {
			return nil, err
		}
	}
	migration, err := o.sub("", "migration_context")
	if err != nil {
		return nil, err
	}
	r, err := s.startRequest(ctx, ss, incidents, generic(migration), false)
	if err != nil {
		return nil, err
	}
	// The stream starts once the reply is out, so the client knows the
	// request id before any notification names it. (The hook is one per
	// connection: should another request's replace it, the work starts a
	// second later.)
	replied := make(chan struct{})
	var once sync.Once
	server.AfterReply(ctx, func() { once.Do(func() { close(replied) }) })
	go func() {
		select {
		case <-replied:
		case <-time.After(time.Second):
		}
		r.run()
	}()
	return map[string]any{"request_id": r.id, "session_id": ss.id, "status": "processing", "incident_count": len(incidents),
		"created_at": stamp(r.createdAt)}, nil
}

// generic decodes an object's fields into plain values.
func generic(o obj) map[string]any {
	if o == nil {
		return nil
	}
	out := make(map[string]any, len(o))
	for k := range o {
		if v := o.anyValue(k); v != nil {
			out[k] = v
		}
	}
	return out
}

func (s *Service) fixCancel(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	id, err := o.required("", "request_id")
	if err != nil {
		return nil, err
	}
	sessionID, err := o.str("", "session_id")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	r := s.requests[id]
	s.mu.Unlock()
	if r == nil || (sessionID != "" && s.lookup(sessionID) != r.sess) {
		return nil, kerr(codeRequestNotFound, map[string]any{"request_id": id}, "request not found: %s", id)
	}
	if !r.cancel("cancelled by the client") {
		r.mu.Lock()
		status, at := r.status, r.finishedAt
		r.mu.Unlock()
		extra := map[string]any{"request_id": id, "status": status}
		if !at.IsZero() {
			extra["completed_at"] = stamp(at)
		}
		return nil, kerr(codeRequestCompleted, extra, "request already completed: %s is %s", id, status)
	}
	return map[string]any{"request_id": id, "status": "cancelled", "cancelled_at": stamp(time.Now()), "cancelled": true}, nil
}

// cancel ends an unfinished request: its pending interactions resolve as
// denied, its running turn is cancelled, no further file is started. False
// when it had ended already.
func (r *request) cancel(reason string) bool {
	r.mu.Lock()
	if r.status != statusProcessing {
		r.mu.Unlock()
		return false
	}
	r.status, r.reason = statusCancelled, reason
	turn := r.turn
	pending := make([]*interaction, 0, len(r.pending))
	for _, it := range r.pending {
		pending = append(pending, it)
	}
	r.mu.Unlock()
	// The turn first, so that nothing of it streams after the cancellation.
	if turn != nil {
		_, _ = r.svc.mgr.CancelTurn(turn.ID())
	}
	r.stop()
	for _, it := range pending {
		it.resolve(stateDenied, reason)
	}
	return true
}

// endReason says why the request's interactions end: its cancellation's
// reason, or its end.
func (r *request) endReason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reason != "" {
		return r.reason
	}
	return "the request ended"
}

// run does the request's work: one turn per file, in order, then
// request_completed.
func (r *request) run() {
	start := time.Now()
	defer close(r.done)
	defer r.stop()
	files := len(r.groups)
	r.progress(0, "analyzing_incidents", fmt.Sprintf("Analyzing %d incident(s) in %d file(s)", len(r.incidents), files))
	outcome := "success"
groups:
	for i, g := range r.groups {
		if r.ctx.Err() != nil {
			break
		}
		where := g.Path
		if where == "" {
			where = "the workspace"
		}
		r.progress(5+90*i/files, "processing_incidents", fmt.Sprintf("Fixing %d incident(s) in %s (file %d of %d)", len(g.Incidents), where, i+1, files))
		status, terr := r.runTurn(g)
		switch status {
		case agent.StatusCompleted:
			r.mu.Lock()
			r.processed += len(g.Incidents)
			r.mu.Unlock()
		case agent.StatusFailed:
			outcome = "failed"
			if !recoverable(terr) {
				break groups
			}
		default: // cancelled
			break groups
		}
	}
	r.mu.Lock()
	cancelled := r.status == statusCancelled
	r.mu.Unlock()
	switch {
	case errors.Is(r.ctx.Err(), context.DeadlineExceeded) && !cancelled:
		outcome = "timeout"
		r.streamError("REQUEST_TIMEOUT", fmt.Sprintf("the request ran past the session's timeout of %s and was stopped", r.sess.cfg.timeout), 0, false, nil)
	case cancelled:
		outcome = "cancelled"
	}
	if outcome == "success" {
		r.progress(100, "completing", fmt.Sprintf("Processed %d incident(s) in %d file(s)", len(r.incidents), files))
	}
	r.finish(outcome, time.Since(start))
}

// recoverable reports whether the request goes on after a file's turn
// failed this way: running out of steps on one file does not stop the
// others; a provider that fails would fail them all.
func recoverable(err *agent.TurnError) bool { return err != nil && err.Code == "MAX_STEPS" }

// runTurn runs one file's turn and waits for its end.
func (r *request) runTurn(g group) (agent.TurnStatus, *agent.TurnError) {
	ss := r.sess
	text := prompt(ss.workspace, g, r.migration)
	ss.startMu.Lock()
	ss.mu.Lock()
	ss.starting = r
	ss.mu.Unlock()
	turn, err := r.svc.mgr.StartTurn(ss.ms.ID(), agent.TurnRequest{Text: text, Behavior: agent.NewTurn})
	ss.mu.Lock()
	ss.starting = nil
	ss.mu.Unlock()
	ss.startMu.Unlock()
	if err != nil {
		terr := &agent.TurnError{Message: err.Error(), Code: "AGENT_ERROR"}
		r.streamError(terr.Code, "the agent could not start working on "+g.Path+": "+err.Error(), 0, false, nil)
		return agent.StatusFailed, terr
	}
	r.mu.Lock()
	r.turn = turn
	cancelled := r.status != statusProcessing
	r.mu.Unlock()
	if cancelled || r.ctx.Err() != nil {
		_, _ = r.svc.mgr.CancelTurn(turn.ID())
	}
	select {
	case <-turn.Done():
	case <-r.ctx.Done():
		_, _ = r.svc.mgr.CancelTurn(turn.ID())
		<-turn.Done()
	}
	info := turn.Info()
	return info.Status, info.Err
}

// finish records the request's end, denies what is still pending and sends
// request_completed, the request's last notification.
func (r *request) finish(outcome string, elapsed time.Duration) {
	r.mu.Lock()
	switch outcome {
	case "success":
		r.status = statusCompleted
	case "cancelled":
		r.status = statusCancelled
	default:
		r.status = statusFailed
	}
	r.finishedAt = time.Now()
	pending := make([]*interaction, 0, len(r.pending))
	for _, it := range r.pending {
		pending = append(pending, it)
	}
	summary := map[string]any{"incidents_processed": r.processed, "proposals_generated": r.proposals, "proposals_applied": r.applied,
		"user_interactions": r.interactions, "processing_time_ms": elapsed.Milliseconds(), "files": len(r.groups)}
	status, reason := r.status, r.reason
	// A finished request is remembered (for -32008) without its incidents.
	r.incidents, r.groups = nil, nil
	r.mu.Unlock()
	for _, it := range pending {
		it.resolve(stateDenied, "the request ended")
	}
	// The session no longer counts the request as active by the time the
	// client reads request_completed.
	ss := r.sess
	ss.mu.Lock()
	for i, a := range ss.active {
		if a == r {
			ss.active = append(ss.active[:i:i], ss.active[i+1:]...)
			break
		}
	}
	ss.last = status
	ss.updatedAt = r.finishedAt
	ss.mu.Unlock()
	content := map[string]any{"event": "request_completed", "request_id": r.id, "status": outcome, "summary": summary}
	if status == statusCancelled && reason != "" {
		content["reason"] = reason
	}
	r.send("kaiak/stream/system", content, nil)
	s := r.svc
	s.mu.Lock()
	s.finished = append(s.finished, r.id)
	if len(s.finished) > keepFinished {
		old := s.requests[s.finished[0]]
		delete(s.requests, s.finished[0])
		s.finished = s.finished[1:]
		for id, it := range s.interactions {
			if it.req == old {
				delete(s.interactions, id)
			}
		}
	}
	s.mu.Unlock()
}

// progress sends kaiak/stream/progress.
func (r *request) progress(percentage int, phase, description string) {
	r.send("kaiak/stream/progress", map[string]any{"percentage": percentage, "phase": phase, "description": description}, nil)
}

// streamError sends kaiak/stream/error; code, when not 0, is the Kaiak
// error code the failure corresponds to.
func (r *request) streamError(errorCode, message string, code int64, recoverable bool, extra map[string]any) {
	content := map[string]any{"error_code": errorCode, "message": message, "recoverable": recoverable}
	if code != 0 {
		content["code"] = code
	}
	for k, v := range extra {
		content[k] = v
	}
	r.mu.Lock()
	r.errs = append(r.errs, message)
	r.mu.Unlock()
	r.sess.mu.Lock()
	r.sess.errorCount++
	r.sess.mu.Unlock()
	r.send("kaiak/stream/error", content, nil)
}

// project sends the stream notifications of one of the request's turn
// events.
func (r *request) project(ev agent.Event) {
	switch ev.Kind {
	case agent.EventTextDelta:
		r.send("kaiak/stream/ai_response", map[string]any{"text": ev.Delta, "partial": true}, nil)
	case agent.EventReasoningDelta:
		r.send("kaiak/stream/thinking", map[string]any{"text": ev.Delta}, nil)
	case agent.EventMessage:
		m := ev.Message
		if m == nil || m.Text == "" {
			return
		}
		content := map[string]any{"text": m.Text, "partial": false}
		if m.Usage != nil {
			content["token_usage"] = map[string]any{"input_tokens": m.Usage.InputTokens, "output_tokens": m.Usage.OutputTokens, "total_tokens": m.Usage.TotalTokens}
		}
		r.mu.Lock()
		r.answers = append(r.answers, m.Text)
		r.mu.Unlock()
		r.send("kaiak/stream/ai_response", content, nil)
	case agent.EventToolCall:
		call := ev.Tool.Call
		r.send("kaiak/stream/tool_call", map[string]any{"tool_call_id": call.ID, "tool_name": call.Name, "operation": "start",
			"parameters": arguments(call.Arguments)}, nil)
	case agent.EventToolResult:
		call, res := ev.Tool.Call, ev.Tool.Result
		content := map[string]any{"tool_call_id": call.ID, "tool_name": call.Name, "operation": "complete", "parameters": arguments(call.Arguments)}
		result := map[string]any{"success": !res.IsError, "data": res.Content}
		if res.IsError {
			content["operation"] = "error"
			result["error"] = res.Content
		}
		if len(res.ChangedFiles) > 0 {
			result["changed_files"] = res.ChangedFiles
		}
		content["result"] = result
		r.send("kaiak/stream/tool_call", content, nil)
	case agent.EventRetry:
		ri := ev.Retry
		r.streamError("MODEL_RETRY", fmt.Sprintf("the model request failed and is retried (attempt %d of %d)", ri.Attempt, ri.MaxAttempts), 0, true,
			map[string]any{"details": ri.Error})
	case agent.EventError:
		if ev.Err != nil {
			r.streamError(ev.Err.Code, ev.Err.Message, 0, recoverable(ev.Err), nil)
		}
	}
}

// arguments decodes a tool call's arguments for display.
func arguments(raw string) any {
	var v map[string]any
	if raw == "" {
		return map[string]any{}
	}
	if json.Unmarshal([]byte(raw), &v) != nil || v == nil {
		return map[string]any{"raw": raw}
	}
	return v
}
