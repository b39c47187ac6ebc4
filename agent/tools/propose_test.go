package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// proposer records proposals and answers them with decide.
type proposer struct {
	got     []agent.Proposal
	applied []error
	decide  func(p agent.Proposal) agent.ProposalDecision
}

func (pr *proposer) env(t *testing.T) *agent.ToolEnv {
	env := newEnv(t)
	env.Propose = func(ctx context.Context, p agent.Proposal) (agent.ProposalDecision, error) {
		pr.got = append(pr.got, p)
		d := pr.decide(p)
		if d.Approved {
			d.Applied = func(err error) { pr.applied = append(pr.applied, err) }
		}
		return d, nil
	}
	return env
}

func runSet(t *testing.T, set *Set, env *agent.ToolEnv, name string, args any) agent.ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	return set.Run(context.Background(), env, agent.ToolCall{ID: "call-1", Name: name, Arguments: string(raw)})
}

func approve(agent.Proposal) agent.ProposalDecision { return agent.ProposalDecision{Approved: true} }

// An approved edit is applied, needs no prior read, and its proposal carries
// everything a reviewer sees.
func TestProposedEditApproved(t *testing.T) {
	pr := &proposer{decide: approve}
	env := pr.env(t)
	path := filepath.Join(env.Workspace, "A.java")
	os.WriteFile(path, []byte("import javax.ejb.Stateless;\nclass A {}\n"), 0o640)
	set := &Set{Proposals: true}
	r := runSet(t, set, env, EditFile, map[string]any{"path": "A.java", "description": "javax to jakarta", "confidence": 1.5,
		"edits": []map[string]string{{"old_text": "javax.ejb", "new_text": "jakarta.ejb"}}})
	if r.IsError || !strings.Contains(r.Content, "approved") {
		t.Fatalf("result: %+v", r)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "import jakarta.ejb.Stateless;\nclass A {}\n" {
		t.Fatalf("file: %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	p := pr.got[0]
	if p.Change != agent.ChangeEdit || p.Path != "A.java" || p.Tool != EditFile || p.CallID != "call-1" || p.ID == "" ||
		p.OriginalHash != agent.ContentHash("import javax.ejb.Stateless;\nclass A {}\n") || p.Confidence != 1 ||
		p.Description != "javax to jakarta" || !strings.Contains(p.Diff, "+import jakarta.ejb.Stateless;") {
		t.Fatalf("proposal %+v", p)
	}
	if len(pr.applied) != 1 || pr.applied[0] != nil {
		t.Fatalf("applied %v", pr.applied)
	}
	if r.Diff != p.Diff || !slices.Equal(r.ChangedFiles, []string{"A.java"}) || r.FirstChangedLine != 1 {
		t.Fatalf("result %+v", r)
	}
}

// A rejected proposal changes nothing and tells the model why.
func TestProposedWriteRejected(t *testing.T) {
	pr := &proposer{decide: func(agent.Proposal) agent.ProposalDecision {
		return agent.ProposalDecision{Reason: "no answer within 300 s"}
	}}
	env := pr.env(t)
	path := filepath.Join(env.Workspace, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	r := runSet(t, &Set{Proposals: true}, env, WriteFile, map[string]any{"path": "a.txt", "content": "new\n"})
	if !r.IsError || !strings.Contains(r.Content, "did not approve") || !strings.Contains(r.Content, "no answer within 300 s") || len(r.ChangedFiles) != 0 {
		t.Fatalf("result %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Fatalf("file changed: %q", data)
	}
	if pr.got[0].Change != agent.ChangeWrite || pr.got[0].Confidence <= 0 || pr.got[0].Confidence > 1 {
		t.Fatalf("proposal %+v", pr.got[0])
	}
}

// A file changed on disk between proposal and approval is left as it is
// now; the approver and the model are told.
func TestProposalOfAChangedFileIsNotApplied(t *testing.T) {
	var path string
	pr := &proposer{decide: func(agent.Proposal) agent.ProposalDecision {
		os.WriteFile(path, []byte("someone else's\n"), 0o644)
		return agent.ProposalDecision{Approved: true}
	}}
	env := pr.env(t)
	path = filepath.Join(env.Workspace, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	r := runSet(t, &Set{Proposals: true}, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{{"old_text": "old", "new_text": "new"}}})
	if !r.IsError || !strings.Contains(r.Content, "changed on disk") || !strings.Contains(r.Content, "Read it again") {
		t.Fatalf("result %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != "someone else's\n" {
		t.Fatalf("file: %q", data)
	}
	var stale *agent.StaleError
	if len(pr.applied) != 1 || !errors.As(pr.applied[0], &stale) {
		t.Fatalf("applied %v", pr.applied)
	}
}

// Create, delete and rename are proposals too.
func TestProposedCreateDeleteRename(t *testing.T) {
	pr := &proposer{decide: approve}
	env := pr.env(t)
	set := &Set{Proposals: true}
	if r := runSet(t, set, env, WriteFile, map[string]any{"path": "dir/new.txt", "content": "hi\n"}); r.IsError {
		t.Fatal(r.Content)
	}
	if r := runSet(t, set, env, RenameFile, map[string]any{"path": "dir/new.txt", "new_path": "other/moved.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "dir/new.txt")); !os.IsNotExist(err) {
		t.Fatalf("source still there: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(env.Workspace, "other/moved.txt")); string(data) != "hi\n" {
		t.Fatalf("moved: %q", data)
	}
	if r := runSet(t, set, env, DeleteFile, map[string]any{"path": "other/moved.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "other/moved.txt")); !os.IsNotExist(err) {
		t.Fatalf("not deleted: %v", err)
	}
	var changes []agent.ChangeType
	for _, p := range pr.got {
		changes = append(changes, p.Change)
	}
	if !slices.Equal(changes, []agent.ChangeType{agent.ChangeCreate, agent.ChangeRename, agent.ChangeDelete}) {
		t.Fatalf("changes %v", changes)
	}
	if pr.got[0].OriginalHash != "" || pr.got[1].NewPath != "other/moved.txt" || !strings.Contains(pr.got[1].Diff, "rename to other/moved.txt") ||
		pr.got[2].Proposed != "" || !strings.Contains(pr.got[2].Diff, "-hi") {
		t.Fatalf("proposals %+v", pr.got)
	}
}

// A create whose file appeared meanwhile never overwrites it.
func TestApplyProposalCreateDoesNotClobber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.txt")
	os.WriteFile(path, []byte("theirs"), 0o644)
	err := agent.ApplyProposal(agent.Proposal{Change: agent.ChangeCreate, Path: "x.txt", File: path, Proposed: "mine"})
	var stale *agent.StaleError
	if !errors.As(err, &stale) {
		t.Fatalf("err %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "theirs" {
		t.Fatalf("clobbered: %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// The proposal set offers delete and rename, no shell, and the reviewer's
// parameters; the default set is unchanged.
func TestProposalSetSpecs(t *testing.T) {
	names := func(s *Set) []string {
		var out []string
		for _, sp := range s.Specs() {
			out = append(out, sp.Name)
		}
		return out
	}
	def, prop := names(&Set{}), names(&Set{Proposals: true})
	if !slices.Contains(def, RunShellCommand) || slices.Contains(def, DeleteFile) {
		t.Fatalf("default set %v", def)
	}
	if slices.Contains(prop, RunShellCommand) || !slices.Contains(prop, DeleteFile) || !slices.Contains(prop, RenameFile) {
		t.Fatalf("proposal set %v", prop)
	}
	for _, sp := range (&Set{Proposals: true}).Specs() {
		if sp.Name == WriteFile {
			if _, ok := sp.Parameters["properties"].(map[string]any)["confidence"]; !ok {
				t.Fatalf("write_file lacks confidence: %v", sp.Parameters)
			}
		}
	}
	for _, sp := range (&Set{}).Specs() {
		if sp.Name == WriteFile {
			if _, ok := sp.Parameters["properties"].(map[string]any)["confidence"]; ok {
				t.Fatal("the default write_file changed")
			}
		}
	}
}
