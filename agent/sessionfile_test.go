package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openCount is how many sessions the manager has open.
func openCount(m *Manager) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// TestResumeOnlyOpensSessionFiles probes Resume with paths that name files
// outside kast's sessions folder, directly, through a symlink inside it or
// through "..": each is refused, and closing and deleting sessions leaves
// those files untouched.
func TestResumeOnlyOpensSessionFiles(t *testing.T) {
	m, _ := newTestManager(t, &scripted{steps: []step{{deltas: []string{"hi"}}}}, nil)
	ms := mustCreate(t, m)
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "hello"}))
	folder := filepath.Dir(ms.Path())

	outside := t.TempDir()
	passwd := filepath.Join(outside, "passwd")
	lookalike := filepath.Join(outside, "2026-01-01T00-00-00.000Z_0123456789abcdef.jsonl")
	sessionData, _ := os.ReadFile(ms.Path())
	originals := map[string][]byte{passwd: []byte("root:x:0:0:root:/root:/bin/sh\n"), lookalike: sessionData}
	for path, data := range originals {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	linkToPasswd := filepath.Join(folder, "2026-01-01T00-00-00.000Z_link.jsonl")
	linkToDir := filepath.Join(m.opts.Store.Dir, "--elsewhere--")
	if err := os.Symlink(passwd, linkToPasswd); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, linkToDir); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(folder, passwd)
	if err != nil {
		t.Fatal(err)
	}

	probes := map[string]struct {
		path    string
		outside bool // else: inside the folder but not a session file
	}{
		"absolute":                {passwd, true},
		"session lookalike":       {lookalike, true},
		"missing outside":         {filepath.Join(outside, "missing.jsonl"), true},
		"symlink to a file":       {linkToPasswd, true},
		"through a symlinked dir": {filepath.Join(linkToDir, filepath.Base(lookalike)), true},
		"dot-dot absolute":        {folder + "/../../../../../../../../.." + passwd, true},
		"dot-dot relative":        {rel, true},
		"the folder itself":       {folder, false},
		"a workspace folder":      {m.opts.Store.Dir + "/x/..", true},
	}
	before := openCount(m)
	for name, p := range probes {
		_, err := m.Resume(p.path, "")
		var bad *SessionPathError
		if !errors.As(err, &bad) || bad.Outside != p.outside {
			t.Errorf("%s (%s): want a session path error (outside %v), got %v", name, p.path, p.outside, err)
		}
	}
	if n := openCount(m); n != before {
		t.Fatalf("refused probes opened sessions: %d open, want %d", n, before)
	}

	// Ids are looked up, never used as paths, and a lookup does not follow
	// a symlinked folder out (the lookalike's id is reachable only so).
	for _, id := range []string{"../../passwd", passwd, "*", "", "0123456789abcdef"} {
		var bad *SessionIDError
		if _, err := m.ResumeID(id, ""); !errors.As(err, &bad) {
			t.Errorf("ResumeID(%q): %v", id, err)
		}
	}
	// A missing file inside the folder is reported as missing.
	if _, err := m.Resume(filepath.Join(folder, "gone.jsonl"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing session file: %v", err)
	}
	// The store never removes a file outside its folder, nor a symlink's target.
	for _, path := range []string{passwd, linkToPasswd, lookalike} {
		if err := m.opts.Store.remove(path); err == nil {
			t.Errorf("remove(%s) succeeded", path)
		}
	}

	empty := mustCreate(t, m)
	if err := m.Close(empty.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Delete(ms.ID()); err != nil {
		t.Fatal(err)
	}
	for path, data := range originals {
		if got, err := os.ReadFile(path); err != nil || string(got) != string(data) {
			t.Errorf("%s changed: %q, %v", path, got, err)
		}
	}
	if target, err := os.Readlink(linkToPasswd); err != nil || target != passwd {
		t.Errorf("the symlink changed: %q, %v", target, err)
	}
}

// TestResumeReturnsTheLiveSession: resuming an open session, by path (also
// through a symlink inside the folder) or by id, returns that session, so a
// turn started through either is seen by both.
func TestResumeReturnsTheLiveSession(t *testing.T) {
	m, _ := newTestManager(t, &scripted{steps: []step{{deltas: []string{"one"}}, {deltas: []string{"two"}}}}, nil)
	ms := mustCreate(t, m)
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "first"}))
	link := filepath.Join(filepath.Dir(ms.Path()), "2026-01-01T00-00-00.000Z_alias.jsonl")
	if err := os.Symlink(ms.Path(), link); err != nil {
		t.Fatal(err)
	}
	byPath, err := m.Resume(ms.Path(), "")
	if err != nil {
		t.Fatal(err)
	}
	byLink, err := m.Resume(link, "")
	if err != nil {
		t.Fatal(err)
	}
	byID, err := m.ResumeID(ms.Header().ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if byPath != ms || byLink != ms || byID != ms || openCount(m) != 1 {
		t.Fatalf("resume opened another session: %p %p %p (live %p), %d open", byPath, byLink, byID, ms, openCount(m))
	}
	waitDone(t, mustStart(t, m, byID.ID(), TurnRequest{Text: "second"}))
	ld, err := Load(ms.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.History()) != 4 || len(ld.Messages) != 4 || ld.Messages[2].Text != "second" {
		t.Fatalf("history %d, file %d messages", len(ms.History()), len(ld.Messages))
	}
}

// TestListRemovesEmptySessions: listing deletes session files that hold
// nothing and no session has open, and keeps named ones, open ones and
// files whose entries are off the active branch.
func TestListRemovesEmptySessions(t *testing.T) {
	m, _ := newTestManager(t, &scripted{}, nil)
	live := mustCreate(t, m)
	st := m.opts.Store
	stale, err := st.Create(Header{Cwd: live.Workspace()})
	if err != nil {
		t.Fatal(err)
	}
	stale.Close() // its process ended
	named, _ := st.Create(Header{Cwd: live.Workspace()})
	named.SetName("keep me")
	named.Close()
	offBranch, _ := st.Create(Header{Cwd: live.Workspace()})
	offBranch.AppendMessage(Message{Role: RoleUser, Text: "kept"})
	offBranch.appendLocked(map[string]any{"type": "leaf", "targetId": nil}, true)
	offBranch.Close()

	list, err := m.List(live.Workspace(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range list {
		paths = append(paths, s.Path)
	}
	got := strings.Join(paths, "\n")
	if len(list) != 3 || strings.Contains(got, stale.Path()) || !strings.Contains(got, live.Path()) ||
		!strings.Contains(got, named.Path()) || !strings.Contains(got, offBranch.Path()) {
		t.Fatalf("listed:\n%s", got)
	}
	if _, err := os.Stat(stale.Path()); !os.IsNotExist(err) {
		t.Fatalf("the empty unnamed file was kept: %v", err)
	}
}
