package kaiak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
)

// Interactions: what the request asks of the person. Approvals come from
// proposals (every file change the model makes), choices from the model's
// questions (ask_user_question). Each is answered once by
// kaiak/interaction/respond, or resolved as denied by its timeout or the
// end of its request (cancel, terminate, shutdown, a closed connection).

// Interaction states.
const (
	statePending   = "pending"
	stateResponded = "responded"
	stateTimeout   = "timeout"
	stateDenied    = "denied"
)

// interaction is one thing the request waits for the person to answer.
type interaction struct {
	id         string
	req        *request
	kind       string // approval, choice, input, confirmation
	proposalID string
	options    []string // a choice's labels
	timeout    time.Duration
	answer     chan answer // the response, once claimed
	outcome    chan error  // an approval's application: nil once applied

	mu          sync.Mutex
	state       string
	reason      string
	respondedAt time.Time
}

// answer is a validated response.
type answer struct {
	approved bool
	indices  []int
	text     string
}

// resolve moves a pending interaction to state; false if it was resolved
// already. A denial or timeout wakes the waiting tool.
func (it *interaction) resolve(state, reason string) bool {
	it.mu.Lock()
	if it.state != statePending {
		it.mu.Unlock()
		return false
	}
	it.state, it.reason, it.respondedAt = state, reason, time.Now()
	it.mu.Unlock()
	if state != stateResponded {
		close(it.answer)
	}
	return true
}

// newInteraction registers an interaction of the request; nil once the
// request has ended.
func (r *request) newInteraction(kind string, timeout time.Duration) *interaction {
	it := &interaction{id: "int-" + newUUID(), req: r, kind: kind, timeout: timeout, answer: make(chan answer, 1),
		outcome: make(chan error, 1), state: statePending}
	r.mu.Lock()
	if r.status != statusProcessing {
		r.mu.Unlock()
		return nil
	}
	r.pending[it.id] = it
	r.interactions++
	r.mu.Unlock()
	r.svc.mu.Lock()
	r.svc.interactions[it.id] = it
	r.svc.mu.Unlock()
	return it
}

func (r *request) dropInteraction(it *interaction) {
	r.mu.Lock()
	delete(r.pending, it.id)
	r.mu.Unlock()
}

// seconds is a timeout as the contract's integer seconds (at least 1).
func seconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

// v1ChangeType is the contract's change_type of a proposal: write and edit
// both modify a file.
func v1ChangeType(c agent.ChangeType) string {
	if c == agent.ChangeWrite {
		return "edit"
	}
	return string(c)
}

// propose is the session's agent.ProposeFunc: it streams the proposal as
// file_modification and an approval user_interaction, and waits for the
// answer, the timeout or the request's end.
func (ss *session) propose(ctx context.Context, p agent.Proposal) (agent.ProposalDecision, error) {
	r := ss.current()
	if r == nil {
		return agent.ProposalDecision{Reason: "no Kaiak request is running"}, nil
	}
	if len(p.Proposed) > MaxFileBytes {
		r.streamError("RESOURCE_EXHAUSTED", fmt.Sprintf("file content limit exceeded: the proposed content of %s is %d bytes; the limit is 1 MB (%d bytes) per file",
			p.Path, len(p.Proposed), MaxFileBytes), codeResourceExhausted, true, map[string]any{"limit": "fileBytes", "file_path": p.Path})
		return agent.ProposalDecision{Reason: "the proposed content exceeds the 1 MB file limit, so it was not shown to the user"}, nil
	}
	it := r.newInteraction("approval", ss.cfg.interactionTimeout)
	if it == nil {
		return agent.ProposalDecision{}, context.Canceled
	}
	defer r.dropInteraction(it)
	it.proposalID = "prop-" + newUUID()
	r.mu.Lock()
	r.proposals++
	r.mu.Unlock()
	description := p.Description
	if description == "" {
		description = fmt.Sprintf("Proposed %s of %s", p.Change, p.Path)
	}
	mod := map[string]any{"file_path": p.Path, "change_type": v1ChangeType(p.Change), "description": description,
		"original_content": p.Original, "proposed_content": p.Proposed, "confidence": p.Confidence, "diff": p.Diff,
		"original_hash": p.OriginalHash, "tool_name": p.Tool, "tool_call_id": p.CallID}
	if p.NewPath != "" {
		mod["new_file_path"] = p.NewPath
	}
	question := fmt.Sprintf("Apply this change to %s? %s", p.Path, description)
	if p.Change == agent.ChangeRename {
		question = fmt.Sprintf("Rename %s to %s? %s", p.Path, p.NewPath, description)
	}
	ask := map[string]any{"interaction_type": "approval", "prompt": question, "proposal_id": it.proposalID, "timeout": seconds(it.timeout)}
	if r.v2 {
		// v2 has one notification: the proposal rides in the tool
		// confirmation.
		ask["tool_name"], ask["arguments"], ask["proposal"] = p.Tool, map[string]any{"path": p.Path}, mod
	} else {
		r.send("kaiak/stream/file_modification", mod, map[string]any{"proposal_id": it.proposalID})
	}
	r.send("kaiak/stream/user_interaction", ask, map[string]any{"interaction_id": it.id})

	a, err := it.wait(ctx)
	switch {
	case errors.Is(err, errTimeout):
		r.streamError("TOOL_EXECUTION_TIMEOUT", fmt.Sprintf("no answer to interaction %s within %d s: the proposed change to %s was denied",
			it.id, seconds(it.timeout), p.Path), codeToolTimeout, true, map[string]any{"interaction_id": it.id, "proposal_id": it.proposalID})
		return agent.ProposalDecision{Reason: fmt.Sprintf("no answer within %d s, so it was denied", seconds(it.timeout))}, nil
	case err != nil:
		return agent.ProposalDecision{}, err
	case !a.approved:
		return agent.ProposalDecision{Reason: "rejected by the user"}, nil
	}
	return agent.ProposalDecision{Approved: true, Applied: func(err error) {
		it.outcome <- err
		r.appliedResult(it, p, err)
	}}, nil
}

// errTimeout is an interaction that got no answer in time.
var errTimeout = errors.New("no answer in time")

// wait waits for the interaction's answer; on its timeout, the request's
// end or the turn's it resolves it as denied, unless an answer won.
func (it *interaction) wait(ctx context.Context) (answer, error) {
	timer := time.NewTimer(it.timeout)
	defer timer.Stop()
	r := it.req
	var err error
	select {
	case a, ok := <-it.answer:
		if ok {
			return a, nil
		}
		return answer{}, context.Canceled // denied by the request's end
	case <-timer.C:
		if it.resolve(stateTimeout, fmt.Sprintf("no answer within %d s", seconds(it.timeout))) {
			return answer{}, errTimeout
		}
	case <-ctx.Done():
		err = ctx.Err()
		if it.resolve(stateDenied, r.endReason()) {
			return answer{}, err
		}
	case <-r.ctx.Done():
		if it.resolve(stateDenied, r.endReason()) {
			return answer{}, context.Canceled
		}
	}
	// A response claimed the interaction first: its answer is on the way.
	if a, ok := <-it.answer; ok {
		return a, nil
	}
	return answer{}, context.Canceled
}

// appliedResult records how an approved proposal's application went.
func (r *request) appliedResult(it *interaction, p agent.Proposal, err error) {
	if err != nil {
		var stale *agent.StaleError
		code := "FILE_MODIFICATION_FAILED"
		msg := fmt.Sprintf("the approved change to %s was not applied: %v", p.Path, err)
		if errors.As(err, &stale) {
			msg = fmt.Sprintf("the approved change was not applied: %v; the model was told to read the file again", err)
		}
		r.streamError(code, msg, codeFileModificationFailed, true, map[string]any{"proposal_id": it.proposalID, "file_path": p.Path})
		return
	}
	r.mu.Lock()
	r.applied++
	r.mu.Unlock()
	ss := r.sess
	ss.mu.Lock()
	for _, f := range []string{p.Path, p.NewPath} {
		if f != "" && !contains(ss.modified, f) {
			ss.modified = append(ss.modified, f)
		}
	}
	ss.mu.Unlock()
}

// questions: the model's ask_user_question becomes one choice interaction
// per question; once all are answered (or timed out) the answers go back
// to the turn.

type questionSet struct {
	mu      sync.Mutex
	id      string
	answers []agent.Answer
	left    int
}

// ask streams a question request's questions as choice interactions. It
// runs on the turn's goroutine and does not wait.
func (r *request) ask(q agent.QuestionRequest) {
	set := &questionSet{id: q.ID, answers: make([]agent.Answer, len(q.Questions)), left: len(q.Questions)}
	timeout := r.sess.cfg.interactionTimeout
	for i, question := range q.Questions {
		it := r.newInteraction("choice", timeout)
		if it == nil {
			return
		}
		labels := make([]string, len(question.Options))
		descriptions := make([]string, len(question.Options))
		for j, o := range question.Options {
			labels[j], descriptions[j] = o.Label, o.Description
		}
		it.options = labels
		r.send("kaiak/stream/user_interaction", map[string]any{"interaction_type": "choice", "prompt": question.Question,
			"header": question.Header, "options": labels, "option_descriptions": descriptions, "timeout": seconds(timeout),
			"response_types": accepts("choice")},
			map[string]any{"interaction_id": it.id})
		go func() {
			defer r.dropInteraction(it)
			a, err := it.wait(r.ctx)
			text := ""
			switch {
			case errors.Is(err, errTimeout):
				r.streamError("TOOL_EXECUTION_TIMEOUT", fmt.Sprintf("no answer to interaction %s within %d s", it.id, seconds(timeout)),
					codeToolTimeout, true, map[string]any{"interaction_id": it.id})
				text = fmt.Sprintf("(no answer within %d s; decide without it)", seconds(timeout))
			case err != nil:
				return // the request ended; so does the question
			case len(a.indices) > 0:
				text = it.options[a.indices[0]]
			default:
				text = a.text
			}
			set.mu.Lock()
			set.answers[i] = agent.Answer{Question: question.Question, Answer: text}
			set.left--
			done := set.left == 0
			set.mu.Unlock()
			if done {
				_ = r.svc.mgr.Answer(r.sess.ms.ID(), set.id, set.answers)
			}
		}()
	}
}

// Responding.

// responseTypes are the v1 response types.
var responseTypes = []string{"approval", "choice", "input", "confirmation"}

// parseResponse reads respond's answer, as the v1 contract's {response_type,
// response_data} or the OpenAPI contract's {response: {type, ...}}. An
// unknown type is -32602; data that does not fit the type is -32011.
func parseResponse(o obj) (typ string, data obj, err error) {
	resp, err := o.sub("", "response")
	if err != nil {
		return "", nil, err
	}
	if resp != nil && !o.has("response_type") {
		if typ, err = resp.required("response.", "type"); err != nil {
			return "", nil, err
		}
		data = obj{}
		switch typ {
		case "approval", "confirmation":
			for k, v := range resp {
				data[k] = v
			}
		case "choice":
			if c, ok := resp["choice"]; ok {
				data["choice"] = c
			}
			if c, ok := resp["selected_indices"]; ok {
				data["selected_indices"] = c
			}
		case "input":
			if c, ok := resp["input"]; ok {
				data["text"] = c
			}
			if c, ok := resp["text"]; ok {
				data["text"] = c
			}
		}
	} else {
		if typ, err = o.required("", "response_type"); err != nil {
			return "", nil, err
		}
		if data, err = o.sub("", "response_data"); err != nil {
			return "", nil, err
		}
		if data == nil {
			return "", nil, invalid(map[string]any{"field": "response_data"}, "invalid params: response_data is required")
		}
	}
	if !contains(responseTypes, typ) {
		return "", nil, invalid(map[string]any{"field": "response_type"}, "invalid params: response_type %q is not one of %s", typ, strings.Join(responseTypes, ", "))
	}
	return typ, data, nil
}

// article is "a kind" or "an kind".
func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

// accepts is what response types an interaction of kind takes: a choice
// also takes an input, the free-text answer beside the options ("other").
func accepts(kind string) []string {
	if kind == "choice" {
		return []string{"choice", "input"}
	}
	return []string{kind}
}

// validate checks a response (-32011): first its data against its own type
// (approval {approved}, confirmation {acknowledged}, input {text}, choice
// {selected_indices} or {choice}), then that the interaction takes that type.
func (it *interaction) validate(typ string, data obj) (answer, error) {
	fail := func(format string, args ...any) (answer, error) {
		return answer{}, kerr(codeResponseInvalid, map[string]any{"interaction_id": it.id, "interaction_type": it.kind, "response_type": typ},
			"response validation failed: "+format, args...)
	}
	var a answer
	label := ""
	switch typ {
	case "approval":
		b, ok, err := data.boolean("response_data.", "approved")
		if err != nil || !ok {
			return fail("an approval needs response_data.approved, a boolean")
		}
		a.approved = b
	case "confirmation":
		b, ok, err := data.boolean("response_data.", "acknowledged")
		if err != nil || !ok {
			return fail("a confirmation needs response_data.acknowledged, a boolean")
		}
		a.approved = b
	case "input":
		text, err := data.str("response_data.", "text")
		if err != nil || !data.has("text") {
			return fail("an input needs response_data.text, a string")
		}
		a.text = text
	case "choice":
		if c, ok := data["choice"]; ok && !data.has("selected_indices") {
			if json.Unmarshal(c, &label) != nil {
				return fail("response_data.choice must be an option's label or index, a string")
			}
			break
		}
		var indices []float64
		if !data.has("selected_indices") || json.Unmarshal(data["selected_indices"], &indices) != nil {
			return fail("a choice needs response_data.selected_indices, an array of option indices")
		}
		if len(indices) != 1 {
			return fail("a choice takes exactly one selected index (multiple selection is not offered), not %d", len(indices))
		}
		n := indices[0]
		if n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
			return fail("selected index %v is not an option index", n)
		}
		a.indices = []int{int(n)}
	}
	if want := accepts(it.kind); !contains(want, typ) {
		return fail("interaction %s expects %s response, not %s", it.id, article(strings.Join(want, " or ")), typ)
	}
	if typ != "choice" {
		return a, nil
	}
	if a.indices == nil {
		for i, o := range it.options {
			if o == label {
				return answer{indices: []int{i}}, nil
			}
		}
		if n, err := strconv.Atoi(label); err == nil && n >= 0 && n < len(it.options) {
			return answer{indices: []int{n}}, nil
		}
		return fail("choice %q is not one of the options %q", label, it.options)
	}
	if a.indices[0] >= len(it.options) {
		return fail("selected index %d is not an option index from 0 to %d", a.indices[0], len(it.options)-1)
	}
	return a, nil
}

func (s *Service) interactionRespond(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	id, err := o.required("", "interaction_id")
	if err != nil {
		return nil, err
	}
	typ, data, err := parseResponse(o)
	if err != nil {
		return nil, err
	}
	return s.respond(id, typ, data)
}

// respond answers an interaction: -32009 when unknown, -32010 when resolved
// already, -32011 when the response does not fit it. An approval answers
// once its change is applied: -32012 when it could not be (the file
// changed on disk meanwhile; the model is told too).
func (s *Service) respond(id, typ string, data obj) (map[string]any, error) {
	s.mu.Lock()
	it := s.interactions[id]
	s.mu.Unlock()
	if it == nil {
		return nil, kerr(codeInteractionNotFound, map[string]any{"interaction_id": id}, "interaction not found: %s", id)
	}
	if err := it.resolved(); err != nil {
		return nil, err
	}
	a, err := it.validate(typ, data)
	if err != nil {
		return nil, err
	}
	return s.deliver(it, a, typ)
}

// deliver hands a validated answer to the waiting tool.
func (s *Service) deliver(it *interaction, a answer, typ string) (map[string]any, error) {
	id := it.id
	if !it.resolve(stateResponded, typ) {
		if err := it.resolved(); err != nil {
			return nil, err
		}
	}
	it.answer <- a
	it.mu.Lock()
	at := it.respondedAt
	it.mu.Unlock()
	res := map[string]any{"interaction_id": id, "status": "processed", "responded_at": stamp(at), "processed": true}
	if it.kind == "approval" && a.approved {
		select {
		case err := <-it.outcome:
			if err != nil {
				return nil, kerr(codeFileModificationFailed, map[string]any{"interaction_id": id, "proposal_id": it.proposalID},
					"file modification failed: %v", err)
			}
			res["applied"] = true
		case <-it.req.done:
			res["applied"] = false
		case <-time.After(30 * time.Second):
			res["applied"] = false
		}
	}
	return res, nil
}

// resolved is -32010 for an interaction no longer pending, saying how it
// was resolved.
func (it *interaction) resolved() error {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.state == statePending {
		return nil
	}
	how := "it was answered"
	switch it.state {
	case stateTimeout:
		how = "it timed out and was denied (" + it.reason + ")"
	case stateDenied:
		how = "it was denied: " + it.reason
	}
	return kerr(codeInteractionResponded, map[string]any{"interaction_id": it.id, "resolution": it.state, "resolved_at": stamp(it.respondedAt)},
		"interaction already responded: %s; %s", it.id, how)
}
