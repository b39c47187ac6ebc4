package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Proposals: file changes a person approves before they happen.
//
// When a tool runs with ToolEnv.Propose set, the file-changing tools of
// agent/tools (write_file, edit_file, delete_file, rename_file) compute the
// change without making it, hand it to Propose as a Proposal and wait for
// the decision:
//
//   - approved: ApplyProposal makes the change atomically, and only if the
//     file still holds what the proposal was computed from (OriginalHash); a
//     file changed on disk meanwhile is a *StaleError, nothing is written and
//     the model is told to read the file again;
//   - rejected (by the person, a timeout, the request's end): nothing is
//     written and the tool result is an error that says so, with the
//     reason, so the model may try another way.
//
// With Propose nil the tools write at once, as they always have.
//
// A projection turns proposals on for a whole session with
// SessionConfig.Propose (Manager.CreateWith), which wraps the session's
// tools with ProposeTools; the projection knows which of its requests the
// session's running turn serves. Kaiak does this; ACP and Kimi may reuse it.

// ChangeType is the kind of file change a proposal makes.
type ChangeType string

// The change types.
const (
	ChangeCreate ChangeType = "create" // a new file
	ChangeWrite  ChangeType = "write"  // an existing file's whole content replaced
	ChangeEdit   ChangeType = "edit"   // exact replacements in an existing file
	ChangeDelete ChangeType = "delete" // a file removed
	ChangeRename ChangeType = "rename" // a file moved to NewPath, content unchanged
)

// Proposal is a file change waiting for a person's decision.
type Proposal struct {
	// ID is unique per proposal.
	ID string
	// Tool and CallID name the tool call that proposes the change.
	Tool   string
	CallID string
	Change ChangeType
	// Path is the file, relative to the workspace, with forward slashes;
	// NewPath is where a rename moves it.
	Path    string
	NewPath string
	// Original is the file's content as the proposal was computed ("" for
	// a create); Proposed is its content after the change ("" for a
	// delete, Original for a rename).
	Original string
	Proposed string
	// Diff is the unified diff from Original to Proposed (a rename's says
	// "rename from/to").
	Diff string
	// OriginalHash is ContentHash(Original), or "" for a create: the
	// change applies only while the file still has it.
	OriginalHash string
	// Confidence, in [0, 1], is the model's stated confidence in the
	// change, or an estimate from the share of the file it touches when the
	// model states none.
	Confidence float64
	// Description is the model's one-line account of the change, or "".
	Description string
	// File and NewFile are the absolute paths the change is made on
	// (confined to the workspace, links inside it resolved).
	File    string
	NewFile string
}

// ProposalDecision is the answer to a proposal.
type ProposalDecision struct {
	Approved bool
	// Reason says why a proposal was not approved ("rejected by the user",
	// "no answer within 300 s"); the model reads it.
	Reason string
	// Applied, when set, is told how applying an approved proposal went:
	// nil once the change is made, a *StaleError or another error when it
	// was not, so the approver can tell its user.
	Applied func(err error)
}

// ProposeFunc puts a proposal to the person and waits for the decision. It
// returns an error only when no decision can come (the turn was cancelled);
// the tool then makes no change.
type ProposeFunc func(ctx context.Context, p Proposal) (ProposalDecision, error)

// StaleError is an approved proposal whose file changed on disk since the
// proposal was computed; nothing was written.
type StaleError struct {
	Path   string // workspace-relative
	Reason string // what changed
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s %s since the change was proposed; the change was not applied", e.Path, e.Reason)
}

// ContentHash is the hex SHA-256 of a file's content.
func ContentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// pathLocks serializes the applications of proposals to one file within the
// process, so two sessions approving changes to the same file at once do
// not both pass the hash check.
var pathLocks sync.Map // absolute path → *sync.Mutex

func lockPaths(paths ...string) func() {
	var held []*sync.Mutex
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		mu, _ := pathLocks.LoadOrStore(p, &sync.Mutex{})
		held = append(held, mu.(*sync.Mutex))
	}
	// A rename locks two paths: always in the order given by the change
	// (source, then target); two renames in opposite directions could
	// deadlock, so the second takes its locks only after the first's.
	globalRenameMu.Lock()
	for _, mu := range held {
		mu.Lock()
	}
	globalRenameMu.Unlock()
	return func() {
		for _, mu := range held {
			mu.Unlock()
		}
	}
}

var globalRenameMu sync.Mutex

// ApplyProposal makes an approved proposal's change: atomically (a write
// goes to a temporary file in the same folder that is then renamed over the
// file, keeping its mode), and only if the file still has OriginalHash (for
// a create and a rename's target: still does not exist). Otherwise it
// returns a *StaleError and changes nothing.
func ApplyProposal(p Proposal) error {
	if p.File == "" {
		return errors.New("the proposal names no file")
	}
	unlock := lockPaths(p.File, p.NewFile)
	defer unlock()
	data, err := os.ReadFile(p.File)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if p.Change == ChangeCreate {
		if exists {
			return &StaleError{Path: p.Path, Reason: "was created by someone else"}
		}
	} else {
		if !exists {
			return &StaleError{Path: p.Path, Reason: "was deleted"}
		}
		if ContentHash(string(data)) != p.OriginalHash {
			return &StaleError{Path: p.Path, Reason: "changed on disk"}
		}
	}
	switch p.Change {
	case ChangeCreate:
		return writeAtomic(p.File, p.Proposed, 0o644, true, p.Path)
	case ChangeWrite, ChangeEdit:
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(p.File); err == nil {
			mode = fi.Mode().Perm()
		}
		return writeAtomic(p.File, p.Proposed, mode, false, p.Path)
	case ChangeDelete:
		return os.Remove(p.File)
	case ChangeRename:
		if p.NewFile == "" {
			return errors.New("the rename names no target")
		}
		if _, err := os.Lstat(p.NewFile); err == nil {
			return &StaleError{Path: p.NewPath, Reason: "was created by someone else"}
		}
		if err := os.MkdirAll(filepath.Dir(p.NewFile), 0o755); err != nil {
			return err
		}
		// A hard link fails when the target exists, so a file created at
		// the target meanwhile is never overwritten.
		if err := os.Link(p.File, p.NewFile); err == nil {
			return os.Remove(p.File)
		} else if errors.Is(err, fs.ErrExist) {
			return &StaleError{Path: p.NewPath, Reason: "was created by someone else"}
		}
		return os.Rename(p.File, p.NewFile)
	}
	return fmt.Errorf("unknown change type %q", p.Change)
}

// writeAtomic writes content to a temporary file beside path and renames it
// over path; with noClobber it links it in place instead, which fails when
// path exists.
func writeAtomic(path, content string, mode os.FileMode, noClobber bool, rel string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".kast-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a rename or link, a no-op or the spare name
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, mode); err != nil {
		return err
	}
	if noClobber {
		if err := os.Link(name, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &StaleError{Path: rel, Reason: "was created by someone else"}
			}
			// No hard links here: check, then rename.
			if _, serr := os.Lstat(path); serr == nil {
				return &StaleError{Path: rel, Reason: "was created by someone else"}
			}
			return os.Rename(name, path)
		}
		return nil
	}
	return os.Rename(name, path)
}

// ProposeTools returns ts with every tool call's ToolEnv.Propose set to
// propose, so the file-changing tools propose their changes instead of
// making them.
func ProposeTools(ts Toolset, propose ProposeFunc) Toolset {
	return proposeTools{ts, propose}
}

type proposeTools struct {
	Toolset
	propose ProposeFunc
}

func (t proposeTools) Run(ctx context.Context, env *ToolEnv, call ToolCall) ToolResult {
	e := *env
	e.Propose = t.propose
	return t.Toolset.Run(ctx, &e, call)
}
