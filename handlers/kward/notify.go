package kward

import (
	"context"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/server"
)

// The Kward notifications of a session's updates.

// kwardSlot is the Kward projection's one subscription slot per session:
// the connection that last created, resumed, branched or started a turn in
// a session receives its notifications.
const kwardSlot = "kward"

// follow makes the caller's connection the receiver of the session's
// notifications, until another connection takes over, the connection ends
// or the session closes.
func (k *Service) follow(ctx context.Context, sessionID string) error {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return nil
	}
	sub, err := k.mgr.Subscribe(sessionID, agent.SubscribeOptions{Slot: kwardSlot}, func(u agent.Update) { k.forward(conn, u) })
	if err != nil {
		return err
	}
	f := k.following(conn)
	f.add(sessionID, sub)
	go func() {
		select {
		case <-conn.Done():
			sub.Close()
		case <-sub.Done():
		}
		f.drop(sessionID, sub)
	}()
	return nil
}

// followed is the sessions whose notifications one connection receives.
type followed struct {
	mu   sync.Mutex
	subs map[string]*agent.Subscription // by session id
}

func (k *Service) following(conn *server.Conn) *followed {
	f, loaded := k.followers.LoadOrStore(conn, &followed{subs: map[string]*agent.Subscription{}})
	if !loaded {
		go func() {
			<-conn.Done()
			k.followers.Delete(conn)
		}()
	}
	return f.(*followed)
}

func (f *followed) add(sessionID string, sub *agent.Subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[sessionID] = sub
}

func (f *followed) drop(sessionID string, sub *agent.Subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs[sessionID] == sub {
		delete(f.subs, sessionID)
	}
}

func (f *followed) sessions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.subs))
	for id := range f.subs {
		ids = append(ids, id)
	}
	return ids
}

// shutdown closes the sessions the connection follows, then replies and
// ends the connection. Closing cancels their turns and waits (bounded) for
// them, so a streaming turn's turnFinished (canceled) reaches the client
// before the reply; empty unnamed session files go, as Kward's do.
func (k *Service) shutdown(ctx context.Context, _ struct{}) (okResult, error) {
	k.closeFollowed(ctx)
	server.CloseAfterReply(ctx)
	return okResult{OK: true}, nil
}

// closeFollowed closes the sessions the connection follows: a streaming
// turn is cancelled and its turnFinished reaches the client first.
func (k *Service) closeFollowed(ctx context.Context) {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return
	}
	var wg sync.WaitGroup
	for _, id := range k.following(conn).sessions() {
		wg.Go(func() { _ = k.mgr.Close(id) })
	}
	wg.Wait()
}

// forward sends one update as its Kward notification.
func (k *Service) forward(conn *server.Conn, u agent.Update) {
	switch {
	case u.Event != nil:
		k.notify(conn, "turn/event", projectEvent(*u.Event))
	case u.Question != nil:
		q := u.Question
		k.notify(conn, "ui/question", map[string]any{"sessionId": u.SessionID, "questionRequestId": q.ID, "questions": q.Questions})
	case u.Approval != nil:
		r := u.Approval
		k.notify(conn, "tool/approvalRequested", map[string]any{"sessionId": u.SessionID, "turnId": r.TurnID, "approvalRequestId": r.ID,
			"toolCallId": r.Call.ID, "toolName": tools.NormalizedName(r.Call.Name), "args": tools.NormalizedArgs(r.Call)})
	case u.Compaction != nil:
		k.notify(conn, "session/event", projectCompaction(u.SessionID, *u.Compaction))
	}
}

// projectCompaction renders a compaction's start or end as session/event.
func projectCompaction(sessionID string, ev agent.CompactionEvent) map[string]any {
	typ, payload := "compactionStart", map[string]any{"reason": "manual"}
	if ev.Auto {
		payload["reason"] = "auto"
	}
	if ev.Done {
		typ = "compactionEnd"
		payload = map[string]any{"result": nil, "aborted": ev.Err != nil, "willRetry": false, "errorMessage": nil}
		if ev.Result != nil {
			payload["result"] = compactionResult(ev.Result)
		}
		if ev.Err != nil {
			payload["errorMessage"] = ev.Err.Error()
		}
	}
	return map[string]any{"timestamp": kwardTime(time.Now()), "sessionId": sessionID, "type": typ, "payload": payload}
}

// notify sends a redacted notification on conn.
func (k *Service) notify(conn *server.Conn, method string, params any) {
	if conn == nil {
		return
	}
	if err := conn.RPC().Notify(context.Background(), method, k.redactParams(params)); err != nil {
		conn.Logger().Debug("kward notification not delivered", "method", method, "err", err)
	}
}
