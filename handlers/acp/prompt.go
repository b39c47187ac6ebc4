package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

type contentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI      string  `json:"uri"`
		Text     *string `json:"text"`
		Blob     string  `json:"blob"`
		MimeType string  `json:"mimeType"`
	} `json:"resource"`
}

type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []contentBlock `json:"prompt"`
}

// input turns the prompt's content blocks into the turn's text and images:
// a resource link becomes a reference the model can read with its tools,
// an embedded text resource is quoted in full.
func input(blocks []contentBlock) (string, []agent.Image, error) {
	var parts []string
	var images []agent.Image
	for i, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			if b.Data == "" || b.MimeType == "" {
				return "", nil, server.InvalidParams("prompt[%d]: an image needs data and mimeType", i)
			}
			images = append(images, agent.Image{Data: b.Data, MimeType: b.MimeType})
		case "resource_link":
			if b.URI == "" {
				return "", nil, server.InvalidParams("prompt[%d]: a resource_link needs a uri", i)
			}
			parts = append(parts, fmt.Sprintf("[@%s](%s)", b.Name, b.URI))
		case "resource":
			if b.Resource == nil || b.Resource.URI == "" {
				return "", nil, server.InvalidParams("prompt[%d]: a resource needs resource.uri", i)
			}
			if b.Resource.Text == nil {
				parts = append(parts, fmt.Sprintf("[binary resource %s (%s) not shown]", b.Resource.URI, b.Resource.MimeType))
				continue
			}
			parts = append(parts, fmt.Sprintf("<context ref=%q>\n%s\n</context>", b.Resource.URI, *b.Resource.Text))
		case "audio":
			return "", nil, server.InvalidParams("prompt[%d]: kast does not take audio (promptCapabilities.audio is false)", i)
		default:
			return "", nil, server.InvalidParams("prompt[%d]: unknown content type %q", i, b.Type)
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return "", nil, server.InvalidParams("the prompt is empty")
	}
	return text, images, nil
}

// prompt runs a turn and answers its stop reason once every update of the
// turn has been written. A prompt while another runs on the session queues
// behind it; a session/cancel read after this prompt cancels it, even
// before its turn started, and one read before it does not touch it.
func (s *Service) prompt(ctx context.Context, p *promptParams) (map[string]any, error) {
	ss, err := s.sessionOf(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	text, images, err := input(p.Prompt)
	if err != nil {
		return nil, err
	}
	readAfter, _ := server.SnapshotOf(ctx).(int64)
	ss.turnMu.Lock()
	if ss.lastCancel > readAfter {
		ss.turnMu.Unlock()
		return map[string]any{"stopReason": "cancelled"}, nil
	}
	t, err := s.mgr.StartTurn(ss.ms.ID(), agent.TurnRequest{Text: text, Images: images, Behavior: agent.NewTurn,
		Approval: ss.policy(), External: ss.external()})
	if err == nil {
		ss.turns[t.ID()] = t
	}
	ss.turnMu.Unlock()
	if err != nil {
		var ie *agent.InputError
		if asInputError(err, &ie) {
			return nil, server.InvalidParams("%s", ie.Message)
		}
		return nil, engineError(err)
	}
	select {
	case <-t.Done():
	case <-ctx.Done():
		_, _ = s.mgr.CancelTurn(t.ID())
		<-t.Done()
	case <-ss.conn.InputEnded():
		// The editor went away: nobody reads the answer, and the
		// connection ends only once every handler has returned.
		_, _ = s.mgr.CancelTurn(t.ID())
		<-t.Done()
	}
	ss.turnMu.Lock()
	delete(ss.turns, t.ID())
	ss.turnMu.Unlock()
	info := t.Info()
	switch {
	case info.Status == agent.StatusCompleted:
		return map[string]any{"stopReason": "end_turn"}, nil
	case info.Status == agent.StatusCanceled:
		return map[string]any{"stopReason": "cancelled"}, nil
	case info.Err != nil && info.Err.Code == "MAX_STEPS":
		return map[string]any{"stopReason": "max_turn_requests"}, nil
	case info.Err != nil && info.Err.Code == "PROVIDER_NOT_CONFIGURED":
		return nil, server.Error(CodeAuthRequired, "AUTH_REQUIRED", info.Err.Message, nil)
	case info.Err != nil:
		return nil, server.Error(jsonrpc2.InternalError, info.Err.Code, info.Err.Message, nil)
	}
	return nil, server.Error(jsonrpc2.InternalError, "TURN_FAILED", "the turn failed", nil)
}

func asInputError(err error, target **agent.InputError) bool {
	ie, ok := err.(*agent.InputError)
	if ok {
		*target = ie
	}
	return ok
}

// cancel cancels every turn of the session's prompts, running or queued,
// and marks the cancel so a prompt read before it but not yet started
// answers cancelled. A second cancel finds nothing more to do; a cancel
// for an unknown session is ignored, as notifications are.
func (s *Service) cancel(ctx context.Context, p *sessionIDParams) error {
	ss, err := s.sessionOf(ctx, p.SessionID)
	if err != nil {
		return nil
	}
	_, cs, _ := s.stateOf(ctx)
	cs.mu.Lock()
	cs.cancels++
	gen := cs.cancels
	cs.mu.Unlock()
	ss.turnMu.Lock()
	ss.lastCancel = gen
	ss.turnMu.Unlock()
	for _, t := range ss.runningTurns() {
		_, _ = s.mgr.CancelTurn(t.ID())
	}
	return nil
}

func (ss *session) runningTurns() []*agent.Turn {
	ss.turnMu.Lock()
	defer ss.turnMu.Unlock()
	out := make([]*agent.Turn, 0, len(ss.turns))
	for _, t := range ss.turns {
		out = append(out, t)
	}
	return out
}

// notify sends one session/update.
func (ss *session) notify(update map[string]any) {
	if update == nil {
		return
	}
	if err := ss.conn.RPC().Notify(context.Background(), "session/update", map[string]any{"sessionId": ss.id, "update": update}); err != nil {
		ss.conn.Logger().Debug("acp session/update not delivered", "err", err)
	}
}

// call sends a request to the client for turnID's work; the turn's end
// stops the wait.
func (ss *session) call(ctx context.Context, turnID, method string, params, result any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss.mu.Lock()
	ss.waits[turnID] = append(ss.waits[turnID], cancel)
	ss.mu.Unlock()
	_, err := ss.conn.RPC().Call(ctx, method, params, result)
	return err
}

// endWaits stops waiting for the replies to a finished turn's requests.
func (ss *session) endWaits(turnID string) {
	ss.mu.Lock()
	cancels := ss.waits[turnID]
	delete(ss.waits, turnID)
	ss.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

func rawJSON(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return v
}
