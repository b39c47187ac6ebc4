package agent

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// newTestManager returns a manager whose configuration resolves to an
// OpenAI provider (from its own environment) built as p, over a fresh data
// folder, and the launch workspace. Its sessions close with the test.
func newTestManager(t *testing.T, p Provider, tools Toolset) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	workspace := t.TempDir()
	env := map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"KAST_PROVIDER": "openai", "KAST_MODEL": "m1", "OPENAI_API_KEY": "sk-test-key-123456",
	}
	m := NewManager(ManagerOptions{
		Env:         func(k string) string { return env[k] },
		Store:       &Store{Dir: filepath.Join(dir, "sessions")},
		Tools:       tools,
		LaunchDir:   workspace,
		ConfigDir:   filepath.Join(dir, "config", "kast"),
		Auth:        AuthStore{Path: filepath.Join(dir, "config", "kast", "auth.json")},
		Secrets:     &Redactor{},
		NewProvider: func(Resolved) (Provider, error) { return p, nil },
	})
	t.Cleanup(func() {
		m.mu.Lock()
		var ids []string
		for id := range m.sessions {
			ids = append(ids, id)
		}
		m.mu.Unlock()
		for _, id := range ids {
			m.Close(id)
		}
	})
	return m, workspace
}

// inbox collects the updates one subscriber receives.
type inbox struct {
	mu      sync.Mutex
	updates []Update
}

func (b *inbox) deliver(u Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.updates = append(b.updates, u)
}

// events returns the turn events received for turnID, in delivery order.
func (b *inbox) events(turnID string) []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Event
	for _, u := range b.updates {
		if u.Event != nil && u.Event.TurnID == turnID {
			out = append(out, *u.Event)
		}
	}
	return out
}

func (b *inbox) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.updates)
}

func mustSubscribe(t *testing.T, m *Manager, sessionID string, opts SubscribeOptions, b *inbox) *Subscription {
	t.Helper()
	sub, err := m.Subscribe(sessionID, opts, b.deliver)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func mustCreate(t *testing.T, m *Manager) *ManagedSession {
	t.Helper()
	ms, err := m.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func mustStart(t *testing.T, m *Manager, sessionID string, req TurnRequest) *Turn {
	t.Helper()
	turn, err := m.StartTurn(sessionID, req)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func isEnded(sub *Subscription) bool {
	select {
	case <-sub.Done():
		return true
	default:
		return false
	}
}

// waitEvents waits until the turn has emitted at least n events.
func waitEvents(t *testing.T, turn *Turn, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for turn.Info().LastSeq < n {
		if time.Now().After(deadline) {
			t.Fatalf("turn %s emitted %d events, want %d", turn.ID(), turn.Info().LastSeq, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSubscriberGetsTurnInOrderTerminalLast(t *testing.T) {
	p := &scripted{steps: []step{
		{deltas: []string{"let me "}, calls: []ToolCall{{ID: "c1", Name: "echo", Arguments: `{"x":1}`}}},
		{deltas: []string{"do", "ne"}},
	}}
	m, _ := newTestManager(t, p, echoTools{})
	ms := mustCreate(t, m)
	b := &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, b)
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "go"})
	waitDone(t, turn)
	evs := b.events(turn.ID())
	checkTurnEvents(t, evs)
	want := []EventKind{EventQueued, EventStarted, EventTextDelta, EventMessage, EventToolCall, EventToolResult,
		EventTextDelta, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for _, ev := range evs {
		if ev.SessionID != ms.ID() {
			t.Fatalf("event of session %q, want %q", ev.SessionID, ms.ID())
		}
	}
	// Nothing of the turn arrives after its finished event.
	b.mu.Lock()
	last := b.updates[len(b.updates)-1]
	b.mu.Unlock()
	if !last.terminal() || last.TurnID() != turn.ID() {
		t.Fatalf("last update = %+v", last)
	}
}

func TestTwoSubscribersGetTheSameUpdates(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a", "b"}}, {deltas: []string{"c"}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	first, second := &inbox{}, &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, first)
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, second)
	one := mustStart(t, m, ms.ID(), TurnRequest{Text: "one"})
	two := mustStart(t, m, ms.ID(), TurnRequest{Text: "two", Behavior: FollowUp})
	waitDone(t, one)
	waitDone(t, two)
	for _, turn := range []*Turn{one, two} {
		a, b := first.events(turn.ID()), second.events(turn.ID())
		checkTurnEvents(t, a)
		checkTurnEvents(t, b)
		if len(a) != len(b) {
			t.Fatalf("subscribers got %d and %d events", len(a), len(b))
		}
		for i := range a {
			if a[i].Seq != b[i].Seq || a[i].Kind != b[i].Kind {
				t.Fatalf("event %d differs: %+v vs %+v", i, a[i], b[i])
			}
		}
	}
}

func TestUnsubscribeStopsDelivery(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a"}}, {deltas: []string{"b"}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	gone, staying := &inbox{}, &inbox{}
	sub := mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, gone)
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, staying)
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "one"}))
	before := gone.count()
	sub.Close()
	sub.Close() // a second close is harmless
	if !isEnded(sub) {
		t.Fatal("a closed subscription is not done")
	}
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "two"})
	waitDone(t, turn)
	if gone.count() != before {
		t.Fatalf("an unsubscribed subscriber got %d more updates", gone.count()-before)
	}
	checkTurnEvents(t, staying.events(turn.ID()))
}

func TestSlotSubscriptionReplacesTheEarlierOne(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a"}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	old, replacement, other := &inbox{}, &inbox{}, &inbox{}
	oldSub := mustSubscribe(t, m, ms.ID(), SubscribeOptions{Slot: "ui"}, old)
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{Slot: "other"}, other)
	newSub := mustSubscribe(t, m, ms.ID(), SubscribeOptions{Slot: "ui"}, replacement)
	if !isEnded(oldSub) || isEnded(newSub) {
		t.Fatalf("old ended %v, new ended %v", isEnded(oldSub), isEnded(newSub))
	}
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "hi"})
	waitDone(t, turn)
	if old.count() != 0 {
		t.Fatalf("the replaced subscriber got %d updates", old.count())
	}
	checkTurnEvents(t, replacement.events(turn.ID()))
	checkTurnEvents(t, other.events(turn.ID()))
}

func TestTurnSubscriptionReplaysThenFollowsLive(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"x", "y"}, block: release}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	session := &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, session)
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "go"})
	waitEvents(t, turn, 4) // queued, started, two deltas; the model now blocks

	b := &inbox{}
	sub := mustSubscribe(t, m, "", SubscribeOptions{TurnID: turn.ID(), Replay: true, After: 1}, b)
	if got := b.events(turn.ID()); len(got) != 3 || got[0].Seq != 2 {
		t.Fatalf("replayed %v", kinds(got))
	}
	close(release)
	waitDone(t, turn)
	evs := b.events(turn.ID())
	for i, ev := range evs {
		if ev.Seq != int64(i+2) {
			t.Fatalf("event %d has sequence %d: %v", i, ev.Seq, kinds(evs))
		}
	}
	if all := session.events(turn.ID()); len(evs) != len(all)-1 || evs[len(evs)-1].Kind != EventFinished {
		t.Fatalf("replay and live = %v, the turn had %v", kinds(evs), kinds(all))
	}
	if !isEnded(sub) {
		t.Fatal("a turn subscription outlived its turn's finished event")
	}

	// A finished turn replays what is kept and ends at once; without
	// replay it ends with nothing.
	late := &inbox{}
	sub = mustSubscribe(t, m, ms.ID(), SubscribeOptions{TurnID: turn.ID(), Replay: true, After: 4}, late)
	if got := late.events(turn.ID()); !isEnded(sub) || len(got) == 0 || got[0].Seq != 5 || got[len(got)-1].Kind != EventFinished {
		t.Fatalf("late replay %v, ended %v", kinds(got), isEnded(sub))
	}
	none := &inbox{}
	if sub = mustSubscribe(t, m, "", SubscribeOptions{TurnID: turn.ID()}, none); !isEnded(sub) || none.count() != 0 {
		t.Fatalf("live-only subscription to a finished turn: ended %v, %d updates", isEnded(sub), none.count())
	}
}

func TestTurnSubscriptionSeesOnlyItsTurn(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"a"}, block: release}, {deltas: []string{"b"}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	first := mustStart(t, m, ms.ID(), TurnRequest{Text: "one"})
	second := mustStart(t, m, ms.ID(), TurnRequest{Text: "two", Behavior: FollowUp})
	b := &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{TurnID: second.ID(), Replay: true}, b)
	close(release)
	waitDone(t, first)
	waitDone(t, second)
	checkTurnEvents(t, b.events(second.ID()))
	if n := len(b.events(first.ID())); n != 0 {
		t.Fatalf("a subscription to one turn got %d events of another", n)
	}
	other := mustCreate(t, m)
	if _, err := m.Subscribe(other.ID(), SubscribeOptions{TurnID: second.ID()}, b.deliver); !isNotFound(err, "turn") {
		t.Fatalf("subscribing to a turn through another session: %v", err)
	}
}

func TestCancelDeliversTheTerminalEventBeforeReturning(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"busy"}, block: release}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	b := &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, b)
	running := mustStart(t, m, ms.ID(), TurnRequest{Text: "one"})
	queued := mustStart(t, m, ms.ID(), TurnRequest{Text: "two", Behavior: FollowUp})
	info, err := m.CancelTurn(queued.ID())
	if err != nil || info.Status != StatusCanceled {
		t.Fatalf("cancel: %+v %v", info, err)
	}
	evs := b.events(queued.ID())
	checkTurnEvents(t, evs)
	if got := kinds(evs); !equalKinds(got, []EventKind{EventQueued, EventCancelRequested, EventFinished}) {
		t.Fatalf("cancelled queued turn delivered %v", got)
	}
	close(release)
	waitDone(t, running)
}

func TestCloseEndsSubscriptions(t *testing.T) {
	block := make(chan struct{}) // never closed: only closing the session ends the turn
	p := &scripted{steps: []step{{deltas: []string{"partial"}, block: block}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	b, turnInbox := &inbox{}, &inbox{}
	sub := mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, b)
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "go"})
	turnSub := mustSubscribe(t, m, "", SubscribeOptions{TurnID: turn.ID(), Replay: true}, turnInbox)
	waitEvents(t, turn, 3)
	if err := m.Close(ms.ID()); err != nil {
		t.Fatal(err)
	}
	evs := b.events(turn.ID())
	checkTurnEvents(t, evs)
	if evs[len(evs)-1].Status != StatusCanceled {
		t.Fatalf("closing the session ended its turn as %v", evs[len(evs)-1].Status)
	}
	if !isEnded(sub) || !isEnded(turnSub) {
		t.Fatalf("subscriptions after close: session %v, turn %v", isEnded(sub), isEnded(turnSub))
	}
	if _, err := m.Subscribe(ms.ID(), SubscribeOptions{}, b.deliver); !isNotFound(err, "session") {
		t.Fatalf("subscribing to a closed session: %v", err)
	}
	if _, err := m.Turn(turn.ID()); !isNotFound(err, "turn") {
		t.Fatalf("a closed session's turn: %v", err)
	}
}

func TestQuestionsAndApprovalsReachSubscribers(t *testing.T) {
	p := &scripted{steps: []step{
		{calls: []ToolCall{{ID: "q", Name: "ask"}}}, {deltas: []string{"thanks"}},
		{calls: []ToolCall{{ID: "e", Name: "echo", Arguments: "{}"}}}, {deltas: []string{"ok"}},
	}}
	m, _ := newTestManager(t, p, toolsets{askTools{}, echoTools{}})
	ms := mustCreate(t, m)
	asked := make(chan Update, 4)
	sub, err := m.Subscribe(ms.ID(), SubscribeOptions{}, func(u Update) {
		if u.Question != nil || u.Approval != nil {
			asked <- u
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "ask me"})
	q := <-asked
	if q.Question == nil || q.SessionID != ms.ID() || q.TurnID() != turn.ID() || len(q.Question.Questions) != 1 {
		t.Fatalf("question update %+v", q)
	}
	if err := m.Answer(ms.ID(), q.Question.ID, []Answer{{Question: "q", Answer: "a"}}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, turn)
	if err := m.Answer(ms.ID(), q.Question.ID, nil); !errors.Is(err, ErrQuestionNotPending) {
		t.Fatalf("answering twice: %v", err)
	}

	turn = mustStart(t, m, ms.ID(), TurnRequest{Text: "echo", ApprovalMode: ApprovalAsk})
	a := <-asked
	if a.Approval == nil || a.TurnID() != turn.ID() || a.Approval.Call.Name != "echo" {
		t.Fatalf("approval update %+v", a)
	}
	if err := m.Approve(ms.ID(), a.Approval.ID, false); err != nil {
		t.Fatal(err)
	}
	waitDone(t, turn)
	h := ms.History()
	if tool := h[len(h)-2]; tool.Role != RoleTool || tool.Text != "Declined: the user did not approve this tool call." {
		t.Fatalf("denied call recorded as %+v", tool)
	}
	if err := m.Approve(ms.ID(), a.Approval.ID, true); !errors.Is(err, ErrApprovalNotPending) {
		t.Fatalf("approving after the turn: %v", err)
	}
}

func TestSubscriberMayCloseItselfWhileDelivering(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a", "b"}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	var got []EventKind
	var sub *Subscription
	var err error
	sub, err = m.Subscribe(ms.ID(), SubscribeOptions{}, func(u Update) {
		got = append(got, u.Event.Kind)
		sub.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "hi"}))
	if len(got) != 1 || got[0] != EventQueued || !isEnded(sub) {
		t.Fatalf("a self-closing subscriber got %v", got)
	}
}

// toolsets serves the tools of several Toolsets.
type toolsets []Toolset

func (ts toolsets) Specs() []ToolSpec {
	var out []ToolSpec
	for _, t := range ts {
		out = append(out, t.Specs()...)
	}
	return out
}

func (ts toolsets) Run(ctx context.Context, env *ToolEnv, call ToolCall) ToolResult {
	for _, t := range ts {
		for _, s := range t.Specs() {
			if s.Name == call.Name {
				return t.Run(ctx, env, call)
			}
		}
	}
	return ToolResult{Content: "Error: no tool " + call.Name, IsError: true}
}

func isNotFound(err error, kind string) bool {
	var nf *NotFoundError
	return errors.As(err, &nf) && nf.Kind == kind
}
