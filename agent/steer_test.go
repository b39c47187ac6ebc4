package agent

import (
	"context"
	"strings"
	"testing"
	"time"
)

// gate is a Toolset whose one tool, wait, reports that it runs and waits
// until released, so a test can act while a turn is between a tool call
// and its result.
type gate struct {
	entered chan string // the call id, once per call
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan string, 8), release: make(chan struct{})} }

func (g *gate) Specs() []ToolSpec {
	return []ToolSpec{{Name: "wait", Description: "Waits.", Parameters: map[string]any{"type": "object"}}}
}

func (g *gate) Run(ctx context.Context, _ *ToolEnv, call ToolCall) ToolResult {
	g.entered <- call.ID
	select {
	case <-g.release:
		return ToolResult{Content: "waited for " + call.ID}
	case <-ctx.Done():
		return ToolResult{Content: "Cancelled.", IsError: true}
	}
}

func (g *gate) waitEntered(t *testing.T) string {
	t.Helper()
	select {
	case id := <-g.entered:
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("the tool was never called")
		return ""
	}
}

// waitRequests waits until the provider has received n requests.
func waitRequests(t *testing.T, p *scripted, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.requestCount() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the provider got %d requests, want %d", p.requestCount(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func roles(msgs []Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Text)
	}
	return strings.Join(out, " | ")
}

func TestSteerIsInjectedAfterToolResults(t *testing.T) {
	g := newGate()
	p := &scripted{steps: []step{
		{deltas: []string{"Looking."}, calls: []ToolCall{{ID: "c1", Name: "wait", Arguments: "{}"}}},
		{deltas: []string{"Answered both."}},
	}}
	s, rec, log := newTestSession(t, p, g)
	running, err := s.Start(Input{Text: "first"}, "")
	if err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	// Omitted behavior while a turn runs is steer.
	steered, err := s.Start(Input{Text: "also this"}, "")
	if err != nil || steered != running {
		t.Fatalf("steering returned %v, %v; want the running turn", steered, err)
	}
	if n := s.Pending(); n != 1 {
		t.Fatalf("pending = %d while the steering waits", n)
	}
	close(g.release)
	waitDone(t, running)
	if info := running.Info(); info.Status != StatusCompleted {
		t.Fatalf("turn %+v", info)
	}
	if len(p.requests) != 2 {
		t.Fatalf("%d model requests, want 2", len(p.requests))
	}
	// The step after the steer sees it after the tool's result, not inside
	// the call/result pair.
	want := "user:first | assistant:Looking. | tool:waited for c1 | user:also this"
	if got := roles(p.requests[1].Messages); got != want {
		t.Fatalf("second request:\n got %s\nwant %s", got, want)
	}
	evs := rec.forTurn(running.ID())
	checkTurnEvents(t, evs)
	wantKinds := []EventKind{EventQueued, EventStarted, EventTextDelta, EventMessage, EventToolCall, EventToolResult,
		EventSteered, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, wantKinds) {
		t.Fatalf("events = %v, want %v", got, wantKinds)
	}
	if ev := evs[6]; ev.Text != "also this" || ev.Steered.IsZero() || ev.Steered.After(ev.Time) {
		t.Fatalf("steered event %+v", ev)
	}
	if evs[9].Text != "Answered both." {
		t.Fatalf("answer %q", evs[9].Text)
	}
	// A reload shows the steered input where the model saw it.
	ld, err := Load(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := roles(ld.Messages), want+" | assistant:Answered both."; got != want {
		t.Fatalf("session file:\n got %s\nwant %s", got, want)
	}
	if n := s.Pending(); n != 0 {
		t.Fatalf("pending = %d after the turn", n)
	}
}

func TestSteerAfterFinalAnswerMakesAnotherStep(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"Done."}, block: release}, {deltas: []string{"And that too."}}}}
	s, rec, _ := newTestSession(t, p, nil)
	running, _ := s.Start(Input{Text: "first"}, "")
	waitRequests(t, p, 1)
	if steered, err := s.Start(Input{Text: "one more thing"}, Steer); err != nil || steered != running {
		t.Fatalf("steer returned %v, %v", steered, err)
	}
	close(release) // the response has no tool call: without the steer it would be the answer
	waitDone(t, running)
	if len(p.requests) != 2 {
		t.Fatalf("%d model requests, want 2", len(p.requests))
	}
	if got, want := roles(p.requests[1].Messages), "user:first | assistant:Done. | user:one more thing"; got != want {
		t.Fatalf("second request:\n got %s\nwant %s", got, want)
	}
	var answers []string
	for _, ev := range rec.forTurn(running.ID()) {
		if ev.Kind == EventAnswer {
			answers = append(answers, ev.Text)
		}
	}
	if len(answers) != 1 || answers[0] != "And that too." || running.Info().Status != StatusCompleted {
		t.Fatalf("answers %q, turn %+v", answers, running.Info())
	}
}

func TestSteerWithNoRunningTurnStartsOne(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"Hi."}}}}
	s, rec, _ := newTestSession(t, p, nil)
	turn, err := s.Start(Input{Text: "hello"}, Steer)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, turn)
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	want := []EventKind{EventQueued, EventStarted, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, want) || turn.Info().Status != StatusCompleted {
		t.Fatalf("events = %v, want %v; turn %+v", got, want, turn.Info())
	}
	if got := roles(p.requests[0].Messages); got != "user:hello" {
		t.Fatalf("request %s", got)
	}
}

func TestSteerOfCancelledTurnBecomesFollowUp(t *testing.T) {
	block := make(chan struct{}) // never closed: only cancellation ends the first stream
	p := &scripted{steps: []step{{deltas: []string{"partial"}, block: block}, {deltas: []string{"Later, answered."}}}}
	m, _ := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	b := &inbox{}
	mustSubscribe(t, m, ms.ID(), SubscribeOptions{}, b)
	running := mustStart(t, m, ms.ID(), TurnRequest{Text: "go", ApprovalMode: ApprovalAsk})
	waitRequests(t, p, 1)
	if steered := mustStart(t, m, ms.ID(), TurnRequest{Text: "later", Behavior: Steer}); steered != running {
		t.Fatalf("steer returned turn %s, want the running %s", steered.ID(), running.ID())
	}
	if _, err := m.CancelTurn(running.ID()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, running)
	for _, ev := range running.Events(0) {
		if ev.Kind == EventSteered {
			t.Fatalf("the cancelled turn took the steering: %v", kinds(running.Events(0)))
		}
	}
	// The steering input was acknowledged, so it is not dropped: it runs as
	// a follow-up turn, announced after the cancelled turn's end.
	var followID string
	deadline := time.Now().Add(10 * time.Second)
	for followID == "" {
		b.mu.Lock()
		for _, u := range b.updates {
			if u.Event != nil && u.Event.Kind == EventQueued && u.Event.TurnID != running.ID() {
				followID = u.Event.TurnID
			}
		}
		b.mu.Unlock()
		if followID == "" && time.Now().After(deadline) {
			t.Fatal("no follow-up turn was queued")
		}
		time.Sleep(time.Millisecond)
	}
	follow, err := m.Turn(followID)
	if err != nil {
		t.Fatalf("the follow-up is not addressable: %v", err)
	}
	waitDone(t, follow)
	if follow.Info().Status != StatusCompleted || follow.input.Text != "later" || follow.input.ApprovalMode != ApprovalAsk {
		t.Fatalf("follow-up %+v with input %+v", follow.Info(), follow.input)
	}
	evs := b.events(follow.ID())
	checkTurnEvents(t, evs)
	want := []EventKind{EventQueued, EventStarted, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, want) {
		t.Fatalf("follow-up events = %v, want %v", got, want)
	}
	b.mu.Lock()
	var order []string
	for _, u := range b.updates {
		if u.Event != nil && (u.Event.Kind == EventFinished && u.Event.TurnID == running.ID() || u.Event.TurnID == followID && u.Event.Kind == EventQueued) {
			order = append(order, string(u.Event.Kind))
		}
	}
	b.mu.Unlock()
	if strings.Join(order, ",") != "finished,queued" {
		t.Fatalf("cancelled turn's end and follow-up's queue in order %v", order)
	}
	if got := roles(p.requests[1].Messages); got != "user:go | user:later" {
		t.Fatalf("follow-up request %s", got)
	}
}

func TestSteerSlashCommands(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"busy"}, block: release}}}
	s, rec, _ := newTestSession(t, p, nil)
	running, _ := s.Start(Input{Text: "first"}, "")
	waitRequests(t, p, 1)
	run := func(context.Context) (string, error) { return "plugin output", nil }
	// A plugin command answers without the model: never steered.
	plugin, err := s.Start(Input{Text: "/hi", Run: run}, Steer)
	if err != nil || plugin == running {
		t.Fatalf("plugin command while busy: %v, %v", plugin, err)
	}
	// An expanded prompt queues by default, as Kward does with busy slash
	// commands, and steers when asked to.
	prompt, err := s.Start(Input{Text: "expanded", Display: "/plan"}, "")
	if err != nil || prompt == running {
		t.Fatalf("slash command with the default behavior: %v, %v", prompt, err)
	}
	explicit, err := s.Start(Input{Text: "expanded again", Display: "/plan now"}, Steer)
	if err != nil || explicit != running {
		t.Fatalf("slash command steered: %v, %v", explicit, err)
	}
	close(release)
	for _, turn := range []*Turn{running, plugin, prompt} {
		waitDone(t, turn)
		if turn.Info().Status != StatusCompleted {
			t.Fatalf("turn %+v", turn.Info())
		}
	}
	var steeredText []string
	for _, ev := range rec.forTurn(running.ID()) {
		if ev.Kind == EventSteered {
			steeredText = append(steeredText, ev.Text)
		}
	}
	if len(steeredText) != 1 || steeredText[0] != "/plan now" {
		t.Fatalf("steered events show %q, want what was typed", steeredText)
	}
	if got := roles(p.requests[1].Messages); got != "user:first | assistant:busy | user:expanded again" {
		t.Fatalf("the steered step saw %s", got)
	}
}

func TestTurnSteeringRules(t *testing.T) {
	tr := newTurn("t1", "s1", Input{Text: "x"}, nil)
	// The worker's turn takes steering before it begins (Kward 0.79 queued
	// it as a follow-up instead).
	if !tr.steer(Input{Text: "a"}) || !tr.steer(Input{Text: "b"}) {
		t.Fatal("a turn about to run refused steering")
	}
	if tr.settle() {
		t.Fatal("a turn with steering waiting settled")
	}
	taken := tr.takeSteering()
	tr.steer(Input{Text: "c"})
	tr.putBackSteering(taken[1:])
	var order []string
	for _, st := range tr.takeSteering() {
		order = append(order, st.in.Text)
	}
	if strings.Join(order, ",") != "b,c" {
		t.Fatalf("put back steering in order %v, want b,c", order)
	}
	// Once settled, steering is refused: the sender queues a new turn, so
	// nothing arrives between the last check and the finished event.
	if !tr.settle() || tr.steer(Input{Text: "late"}) {
		t.Fatal("a settled turn took steering")
	}

	cmd := newTurn("t2", "s1", Input{Text: "/hi", Run: func(context.Context) (string, error) { return "", nil }}, nil)
	if cmd.steer(Input{Text: "x"}) {
		t.Fatal("a command turn took steering")
	}
	cancelled := newTurn("t3", "s1", Input{Text: "x"}, nil)
	cancelled.requestCancel()
	if cancelled.steer(Input{Text: "x"}) {
		t.Fatal("a cancelled turn took steering")
	}
}
