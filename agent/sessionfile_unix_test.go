//go:build unix

package agent

import (
	"errors"
	"os"
	"testing"
)

// TestSessionFileLockAcrossManagers: a second manager (another process, as
// far as the file lock goes) neither resumes a session the first has open
// nor deletes an empty session file it holds; once released, both can.
func TestSessionFileLockAcrossManagers(t *testing.T) {
	m, _ := newTestManager(t, &scripted{}, nil)
	other := NewManager(m.opts)
	ms := mustCreate(t, m)
	waitDone(t, mustStart(t, m, ms.ID(), TurnRequest{Text: "hello"}))
	if _, err := other.Resume(ms.Path(), ""); !errors.Is(err, ErrSessionInUse) {
		t.Fatalf("a second writer: %v", err)
	}
	empty := mustCreate(t, m)
	if _, err := other.List(ms.Workspace(), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty.Path()); err != nil {
		t.Fatalf("listing elsewhere removed a live empty session: %v", err)
	}

	if err := m.Close(ms.ID()); err != nil {
		t.Fatal(err)
	}
	resumed, err := other.Resume(ms.Path(), "")
	if err != nil || len(resumed.History()) != 2 {
		t.Fatalf("resume after close: %v", err)
	}
	other.Close(resumed.ID())
	empty.log.Close() // as if its process had ended
	other.List(ms.Workspace(), 10)
	if _, err := os.Stat(empty.Path()); !os.IsNotExist(err) {
		t.Fatalf("an abandoned empty session was kept: %v", err)
	}
}
