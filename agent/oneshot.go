package agent

import (
	"context"
	"fmt"
	"strings"
)

// One-shot model requests outside any session: a key check and ghost-text
// completion for editors.

// ProbeProvider sends the configured provider a one-word request, a real
// round trip proving that its key, endpoint and model work.
func (m *Manager) ProbeProvider(ctx context.Context) (ProviderInfo, error) {
	p, err := m.Provider()
	if err != nil {
		return ProviderInfo{}, err
	}
	_, err = p.Stream(ctx, &ModelRequest{
		System:   "Reply with the single word OK.",
		Messages: []Message{{Role: RoleUser, Text: "Are you there?"}},
	}, DeltaSink{})
	return p.Info(), err
}

// InlineRequest is the code around an editor's cursor.
type InlineRequest struct {
	Path, Language string
	Prefix, Suffix string
}

// CompleteInline asks the configured model for the code that goes at the
// cursor between Prefix and Suffix; "" when it has nothing to add.
func (m *Manager) CompleteInline(ctx context.Context, req InlineRequest) (string, error) {
	p, err := m.Provider()
	if err != nil {
		return "", err
	}
	prompt := fmt.Sprintf("File %s (%s). Write the code that goes at <CURSOR>.\n\n%s<CURSOR>%s", req.Path, req.Language, req.Prefix, req.Suffix)
	resp, err := p.Stream(ctx, &ModelRequest{
		System: "You complete code in an editor. Answer with only the text to insert at <CURSOR>: no explanation, " +
			"no code fences, nothing that is already before or after the cursor. Answer with nothing when nothing fits.",
		Messages: []Message{{Role: RoleUser, Text: prompt}},
	}, DeltaSink{})
	if err != nil {
		return "", err
	}
	return unfence(resp.Text), nil
}

// unfence drops a code fence a model put around its answer anyway.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return strings.TrimRight(s, " \t\n")
	}
	t = strings.TrimPrefix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimRight(strings.TrimSuffix(strings.TrimRight(t, " \t\n"), "```"), " \t\n")
}
