package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManagerSessionLifecycle(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"first answer"}}, {deltas: []string{"second answer"}}}}
	m, workspace := newTestManager(t, p, nil)
	ms, err := m.Create("", "")
	if err != nil {
		t.Fatal(err)
	}
	h := ms.Header()
	if ms.Workspace() != mustReal(t, workspace) || h.Cwd != ms.Workspace() || h.Provider != "scripted" || h.Model != "m1" || ms.Name() != "" {
		t.Fatalf("created %+v in %s named %q", h, ms.Workspace(), ms.Name())
	}
	if got, err := m.Session(ms.ID()); err != nil || got != ms {
		t.Fatalf("Session(%s) = %v, %v", ms.ID(), got, err)
	}
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "one"}))
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "two"}))
	if _, err := m.Rename(ms.ID(), "  chat  "); err != nil || ms.Name() != "chat" {
		t.Fatalf("rename: %q %v", ms.Name(), err)
	}

	clone, err := m.Clone(ms.ID())
	if err != nil {
		t.Fatal(err)
	}
	if ch := clone.Header(); len(clone.History()) != 4 || ch.ParentID != h.ID || ch.ParentPath != ms.Path() || clone.ID() == ms.ID() {
		t.Fatalf("clone %+v with %d messages", ch, len(clone.History()))
	}
	second := ms.History()[2]
	fork, entry, err := m.Fork(ms.ID(), second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Text != "two" || len(fork.History()) != 2 || fork.History()[1].Text != "first answer" {
		t.Fatalf("fork at %q holds %+v", entry.Text, fork.History())
	}
	if _, _, err := m.Fork(ms.ID(), ms.History()[1].ID); !errors.Is(err, ErrEntryNotFound) {
		t.Fatalf("forking at an assistant message: %v", err)
	}

	summaries, err := m.List(ms.Workspace(), 10)
	if err != nil || len(summaries) != 3 {
		t.Fatalf("list: %d sessions, %v", len(summaries), err)
	}

	// Resuming an open session's file returns that session: one writer.
	resumed, err := m.Resume(ms.Path(), "")
	if err != nil || resumed != ms {
		t.Fatalf("resuming an open session: %v, %v", resumed, err)
	}
	var missing *fs.PathError
	if _, err := m.Resume("nope.jsonl", ""); !errors.As(err, &missing) || missing.Path != filepath.Join(m.opts.Store.DirFor(ms.Workspace()), "nope.jsonl") {
		t.Fatalf("resuming a missing file: %v", err)
	}

	path, err := m.Delete(clone.ID())
	if _, serr := os.Stat(path); err != nil || path != clone.Path() || !os.IsNotExist(serr) {
		t.Fatalf("delete: %s %v %v", path, err, serr)
	}
	if _, err := m.Session(clone.ID()); !isNotFound(err, "session") {
		t.Fatalf("a deleted session is still open: %v", err)
	}
	if err := m.Close(ms.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ms.Path()); err != nil {
		t.Fatalf("closing a session with messages removed its file: %v", err)
	}

	// A closed session's file resumes, by path or by id, into a new session
	// that carries its conversation.
	for _, resume := range []func() (*ManagedSession, error){
		func() (*ManagedSession, error) { return m.Resume(ms.Path(), "") },
		func() (*ManagedSession, error) { return m.ResumeID(h.ID, "") },
	} {
		resumed, err := resume()
		if err != nil {
			t.Fatal(err)
		}
		if resumed.ID() == ms.ID() || len(resumed.History()) != 4 || resumed.Workspace() != ms.Workspace() || resumed.Name() != "chat" {
			t.Fatalf("resumed %s with %d messages in %s", resumed.ID(), len(resumed.History()), resumed.Workspace())
		}
		if err := m.Close(resumed.ID()); err != nil {
			t.Fatal(err)
		}
	}
	empty := mustCreate(t, m)
	if err := m.Close(empty.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty.Path()); !os.IsNotExist(err) {
		t.Fatalf("closing an empty, unnamed session kept its file: %v", err)
	}
	if err := m.Close(empty.ID()); !isNotFound(err, "session") {
		t.Fatalf("closing twice: %v", err)
	}
	if _, err := m.StartTurn(ms.ID(), TurnRequest{Text: "x"}); !isNotFound(err, "session") {
		t.Fatalf("a turn in a closed session: %v", err)
	}
}

func mustReal(t *testing.T, path string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestManagerWorkspaceErrors(t *testing.T) {
	m, _ := newTestManager(t, &scripted{}, nil)
	missing := filepath.Join(t.TempDir(), "missing")
	var we *WorkspaceError
	if _, err := m.Create(missing, ""); !errors.As(err, &we) || we.NotDir || we.Root != missing {
		t.Fatalf("a missing workspace: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := m.Workspace(file); !errors.As(err, &we) || !we.NotDir {
		t.Fatalf("a file as workspace: %v", err)
	}
}

func TestManagerTurns(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a", "b"}}}}
	m, workspace := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	if _, err := m.StartTurn(ms.ID(), TurnRequest{Text: "  "}); !isInputError(err) {
		t.Fatalf("empty input: %v", err)
	}
	// A slash command expands to its prompt template; the transcript keeps
	// what was typed.
	os.MkdirAll(filepath.Join(workspace, ".kast", "prompts"), 0o700)
	os.WriteFile(filepath.Join(workspace, ".kast", "prompts", "fix.md"), []byte("Fix $ARGUMENTS carefully."), 0o600)
	turn := mustStart(t, m, ms.ID(), TurnRequest{Text: "/fix the bug"})
	waitDone(t, turn)
	if got, err := m.Turn(turn.ID()); err != nil || got != turn {
		t.Fatalf("Turn(%s) = %v, %v", turn.ID(), got, err)
	}
	user := ms.History()[0]
	if !strings.HasPrefix(user.Text, "Fix the bug") || !strings.Contains(string(user.Extra["display_content"]), "/fix the bug") {
		t.Fatalf("stored user message %+v", user)
	}
	info, evs, err := m.TurnEvents(turn.ID(), 3)
	if err != nil || info.Status != StatusCompleted || len(evs) == 0 || evs[0].Seq != 4 || evs[len(evs)-1].Kind != EventFinished {
		t.Fatalf("TurnEvents: %+v %v %v", info, kinds(evs), err)
	}
	if _, err := m.CancelTurn("nope"); !isNotFound(err, "turn") {
		t.Fatalf("cancelling an unknown turn: %v", err)
	}
	if info, err := m.CancelTurn(turn.ID()); err != nil || info.Status != StatusCompleted || info.CancelRequested {
		t.Fatalf("cancelling a finished turn: %+v %v", info, err)
	}
	if err := m.Answer(ms.ID(), "nope", nil); !errors.Is(err, ErrQuestionNotPending) {
		t.Fatalf("answering no question: %v", err)
	}
}

// A long-lived session keeps only its latest ended turns addressable: the
// older ones, and their event streams, are let go.
func TestManagerForgetsOldTurns(t *testing.T) {
	m, _ := newTestManager(t, &scripted{}, nil)
	ms := mustCreate(t, m)
	var ids []string
	for i := range keepFinishedTurns + 3 {
		turn := mustStart(t, m, ms.ID(), TurnRequest{Text: fmt.Sprintf("turn %d", i)})
		waitDone(t, turn)
		ids = append(ids, turn.ID())
	}
	for i, id := range ids {
		_, _, err := m.TurnEvents(id, 0)
		if old := i < 3; old != isNotFound(err, "turn") {
			t.Errorf("turn %d of %d: %v", i+1, len(ids), err)
		}
	}
	if n := len(ms.History()); n != 2*len(ids) {
		t.Errorf("the conversation lost messages: %d", n)
	}
}

func TestManagerExport(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"an <answer>"}}}}
	m, workspace := newTestManager(t, p, nil)
	ms := mustCreate(t, m)
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "question"}))
	path, format, err := m.Export(ms.ID(), "", "")
	if err != nil || format != "markdown" || path != strings.TrimSuffix(ms.Path(), ".jsonl")+".md" {
		t.Fatalf("default export: %s %s %v", path, format, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "## User\n\nquestion") || !strings.Contains(string(data), "an <answer>") {
		t.Fatalf("markdown:\n%s", data)
	}
	path, _, err = m.Export(ms.ID(), "out.html", "html")
	if data, _ := os.ReadFile(path); err != nil || path != filepath.Join(mustReal(t, workspace), "out.html") || !strings.Contains(string(data), "an &lt;answer&gt;") {
		t.Fatalf("html export to %s: %v\n%s", path, err, data)
	}
	var bad *ExportPathError
	if _, _, err := m.Export(ms.ID(), filepath.Join(t.TempDir(), "x.md"), "md"); !errors.As(err, &bad) || !bad.Outside {
		t.Fatalf("export outside: %v", err)
	}
	if _, _, err := m.Export(ms.ID(), "no/such/dir/x.md", ""); !errors.As(err, &bad) || bad.Outside {
		t.Fatalf("export into a missing folder: %v", err)
	}
	// A file in the workspace that is a link out is never written through.
	outside := filepath.Join(t.TempDir(), "victim.md")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(workspace, "link.md")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Export(ms.ID(), "link.md", ""); !errors.As(err, &bad) || !bad.Outside {
		t.Fatalf("export through a link out: %v", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep" {
		t.Fatalf("the export wrote through the link: %q", data)
	}
	if _, _, err := m.Export(ms.ID(), "", "pdf"); !isInputError(err) {
		t.Fatalf("export as pdf: %v", err)
	}
}

func TestManagerMemoryRetrievalPerSession(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"ok"}}, {deltas: []string{"ok"}}}}
	m, _ := newTestManager(t, p, nil)
	m.opts.Memory = &MemoryStore{Dir: filepath.Join(t.TempDir(), "memory")}
	if _, err := UpdateConfig(ConfigPath(m.opts.Env), map[string]any{"memory": map[string]any{"enabled": true, "autoSummary": true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.opts.Memory.AddCore(MemoryInput{Text: "Tests use the race detector."}); err != nil {
		t.Fatal(err)
	}
	quiet, talking := mustCreate(t, m), mustCreate(t, m)
	waitDone(t, mustStart(t, m, talking.ID(), TurnRequest{Text: "I always prefer table-driven tests with the race detector"}))
	r := talking.Retrieval()
	if r == nil || len(r.Core) != 1 || m.LastRetrieval() != r || quiet.Retrieval() != nil {
		t.Fatalf("retrieval %+v, last %+v, other session %+v", r, m.LastRetrieval(), quiet.Retrieval())
	}
	// The completed turn's preference was learned before its finished event.
	_, soft, err := m.opts.Memory.List(false)
	if err != nil || len(soft) != 1 || !strings.Contains(soft[0].Text, "table-driven") {
		t.Fatalf("auto-summarized memories %+v, %v", soft, err)
	}
	if _, err := m.SummarizeMemories("nope"); !isNotFound(err, "session") {
		t.Fatalf("summarizing an unknown session: %v", err)
	}
}

func TestManagerCompactEmptySession(t *testing.T) {
	m, _ := newTestManager(t, &scripted{}, nil)
	ms := mustCreate(t, m)
	if _, err := m.Compact(context.Background(), ms.ID(), ""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("compacting an empty session: %v", err)
	}
}
