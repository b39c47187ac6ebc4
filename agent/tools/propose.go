package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/kast-dev/kast/agent"
)

// Proposals (agent.Proposal): with env.Propose set, write_file, edit_file,
// delete_file and rename_file compute their change, propose it and make it
// only once approved, through agent.ApplyProposal.

// callKey carries the running tool call in the context, so a proposal names
// the call that made it.
type callKey struct{}

// proposalSpec adds the reviewer's parameters to a file-changing tool.
func proposalSpec(spec agent.ToolSpec) agent.ToolSpec {
	params := maps.Clone(spec.Parameters)
	props := maps.Clone(params["properties"].(map[string]any))
	props["description"] = str("One line for the person reviewing the change: what it does and why.")
	props["confidence"] = map[string]any{"type": "number", "minimum": 0, "maximum": 1,
		"description": "How sure you are that the change is right and complete, from 0 to 1."}
	params["properties"] = props
	spec.Parameters = params
	spec.Description += " The change is shown to the user, who approves or rejects it; a rejected change is not made."
	return spec
}

// reviewArgs are the reviewer's parameters of a proposal-mode tool.
type reviewArgs struct {
	Description string   `json:"description"`
	Confidence  *float64 `json:"confidence"`
}

// propose puts p to the person and, once approved, applies it; done is the
// tool's result text once the change is made.
func propose(ctx context.Context, env *agent.ToolEnv, p agent.Proposal, review reviewArgs, done string) agent.ToolResult {
	if call, ok := ctx.Value(callKey{}).(agent.ToolCall); ok {
		p.Tool, p.CallID = call.Name, call.ID
	}
	p.ID = agent.NewID()
	p.Description = strings.TrimSpace(review.Description)
	var first int
	if p.Change == agent.ChangeRename {
		p.Diff = fmt.Sprintf("diff --git a/%s b/%s\nrename from %s\nrename to %s\n", p.Path, p.NewPath, p.Path, p.NewPath)
	} else {
		p.Diff, first = UnifiedDiff(p.Path, p.Original, p.Proposed)
	}
	if p.Change != agent.ChangeCreate {
		p.OriginalHash = agent.ContentHash(p.Original)
	}
	p.Confidence = confidence(review.Confidence, p)
	dec, err := env.Propose(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return cancelled()
		}
		return errorf("the change to %s could not be proposed: %v", p.Path, err)
	}
	if !dec.Approved {
		reason := dec.Reason
		if reason == "" {
			reason = "rejected by the user"
		}
		return errorf("the user did not approve the proposed %s of %s (%s); the file is unchanged. "+
			"You may propose a different change, or explain why this one is needed.", p.Change, p.Path, reason)
	}
	err = agent.ApplyProposal(p)
	if dec.Applied != nil {
		dec.Applied(err)
	}
	var stale *agent.StaleError
	switch {
	case errors.As(err, &stale):
		return errorf("%v: it changed while the user reviewed the change. Read it again and propose the change anew.", err)
	case err != nil:
		return errorf("applying the approved change to %s failed: %v", p.Path, describe(err))
	}
	changed := []string{p.Path}
	switch p.Change {
	case agent.ChangeRename:
		changed = append(changed, p.NewPath)
		env.Reads.Mark(p.NewFile)
	case agent.ChangeDelete:
	default:
		env.Reads.Mark(p.File)
	}
	return agent.ToolResult{Content: done + " The user approved the change.", Diff: p.Diff, ChangedFiles: changed, FirstChangedLine: first}
}

// confidence is the model's stated confidence clamped to [0, 1] or, when it
// states none, an estimate: 1 for a change touching nothing, falling to 0.5
// as the share of the file's lines it touches grows to all of them.
func confidence(stated *float64, p agent.Proposal) float64 {
	if stated != nil {
		return min(max(*stated, 0), 1)
	}
	switch p.Change {
	case agent.ChangeRename:
		return 0.9
	case agent.ChangeCreate, agent.ChangeDelete:
		return 0.5
	}
	lines := max(strings.Count(p.Original, "\n"), strings.Count(p.Proposed, "\n"), 1)
	changed := 0
	for _, l := range strings.Split(p.Diff, "\n") {
		if (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++")) || (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---")) {
			changed++
		}
	}
	share := min(float64(changed)/float64(2*lines), 1)
	return float64(int((1-share/2)*100+0.5)) / 100
}
