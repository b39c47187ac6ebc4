package kaiak

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// The later Kaiak names, as aliases onto the same sessions and requests:
//
//   - kaiak/generate_fix {session_id?, incidents, agentConfig?,
//     migration_context?, interaction_context?} creates the session when
//     session_id is absent or unknown (the client's id then names it), runs
//     the request and answers when it is done, streaming
//     kaiak/generate_fix/data {request_id, session_id, kind, payload};
//   - kaiak/delete_session {session_id} terminates it;
//   - kaiak/client/user_message {session_id, kind | message_type, payload}
//     answers tool confirmations (approvals), input and control signals;
//   - on `kast kaiak rpc`, workspace/executeCommand {command, arguments}
//     runs them as the v1.5 recordings do.
//
// v2 renumbered the error codes; the aliases answer with v1's, except a
// generate_fix on a session that is busy, which is v2's -32016.

// parseIncidentsV2 decodes v2 incidents: {id, rule_id, message,
// description?, effort?, severity?, uri?} (file_path, line_number,
// category and metadata are taken too). A malformed incident is -32602
// with the issues found.
func parseIncidentsV2(items []json.RawMessage) ([]Incident, error) {
	if len(items) > MaxIncidents {
		return nil, limitError("incidents", map[string]any{"count": len(items), "max": MaxIncidents},
			"incident limit exceeded: the request has %d incidents; the limit is %d per request", len(items), MaxIncidents)
	}
	out := make([]Incident, 0, len(items))
	for i, raw := range items {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return nil, malformed(i, "", "Not an object")
		}
		f := obj(m)
		var issues []string
		str := func(key string) string {
			v, err := f.str("", key)
			if err != nil {
				issues = append(issues, key+" is not a string")
			}
			return v
		}
		in := Incident{ID: str("id"), RuleID: str("rule_id"), Message: str("message"), Description: str("description"),
			Severity: str("severity"), Category: str("category"), FilePath: str("file_path")}
		if uri := str("uri"); in.FilePath == "" {
			in.FilePath = uri
		}
		if strings.TrimSpace(in.ID) == "" {
			issues = append(issues, "empty ID")
		}
		if in.Severity == "" {
			in.Severity = "warning"
		} else if !slices.Contains(severities, in.Severity) {
			issues = append(issues, fmt.Sprintf("invalid severity %q", in.Severity))
		}
		if strings.TrimSpace(in.RuleID) == "" {
			issues = append(issues, "missing rule_id")
		}
		if strings.TrimSpace(in.Message) == "" {
			issues = append(issues, "missing message")
		}
		if n, _, err := f.integer("", "line_number", 0, 1<<31-1); err != nil {
			issues = append(issues, "line_number is not an integer >= 0")
		} else {
			in.LineNumber = n
		}
		if f.has("metadata") && (json.Unmarshal(m["metadata"], &in.Metadata) != nil || in.Metadata == nil) {
			issues = append(issues, "metadata is not an object")
		}
		if effort := f.anyValue("effort"); effort != nil {
			if in.Metadata == nil {
				in.Metadata = map[string]any{}
			}
			in.Metadata["effort"] = effort
		}
		if len(issues) > 0 {
			first := strings.ToUpper(issues[0][:1]) + issues[0][1:]
			return nil, malformed(i, in.ID, strings.Join(append([]string{first}, issues[1:]...), " and "))
		}
		out = append(out, in)
	}
	return out, nil
}

func malformed(i int, id, issue string) error {
	return invalid(map[string]any{"incident_index": i, "incident_id": id, "issue": issue}, "Invalid params: Malformed incident data")
}

func (s *Service) generateFix(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	clientID, err := o.str("", "session_id")
	if err != nil {
		return nil, err
	}
	items, ok, err := o.list("", "incidents")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid(map[string]any{"field": "incidents"}, "invalid params: incidents is required")
	}
	incidents, err := parseIncidentsV2(items)
	if err != nil {
		return nil, err
	}
	ac, err := o.sub("", "agentConfig")
	if err == nil && ac == nil {
		ac, err = o.sub("", "agent_config")
	}
	if err != nil {
		return nil, err
	}
	ss := s.lookup(clientID)
	if ss != nil {
		ss.mu.Lock()
		terminated := ss.terminated
		ss.mu.Unlock()
		if terminated {
			ss = nil
		}
	}
	created := false
	if ss == nil {
		if ss, err = s.openV2Session(ctx, ac); err != nil {
			return nil, err
		}
		created = true
		if clientID != "" {
			s.mu.Lock()
			s.aliases[clientID] = ss.id
			s.mu.Unlock()
		}
	}
	name := ss.id
	if clientID != "" {
		name = clientID
	}
	ss.mu.Lock()
	if len(ss.active) > 0 {
		since := ss.active[0].createdAt
		ss.mu.Unlock()
		return nil, kerr(codeSessionInUse, map[string]any{"session_id": name, "in_use_since": stamp(since)},
			"Session is currently in use by another client")
	}
	ss.mu.Unlock()
	migration := map[string]any{}
	for _, key := range []string{"migration_context", "interaction_context"} {
		sub, err := o.sub("", key)
		if err != nil {
			return nil, err
		}
		for k, v := range generic(sub) {
			migration[k] = v
		}
	}
	r, err := s.startRequest(ctx, ss, incidents, migration, true)
	if err != nil {
		return nil, err
	}
	r.sessionID = name
	// The answer waits for the work: leave the read loop.
	jsonrpc2.Async(ctx)
	go r.run()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel("the client cancelled kaiak/generate_fix")
		<-r.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	status := "completed"
	if r.status != statusCompleted {
		status = "failed"
	}
	return map[string]any{"request_id": r.id, "session_id": name, "status": status, "incident_count": len(incidents),
		"completed_at": stamp(r.finishedAt), "agent_response": strings.Join(r.answers, "\n\n"), "session_created": created,
		"errors": append([]string{}, r.errs...), "proposals_generated": r.proposals, "proposals_applied": r.applied}, nil
}

// openV2Session opens the session of a generate_fix that names none (or
// one unknown): its workspace is agentConfig.workspace.working_dir, else
// the launch folder; overrideBaseConfig.model names its provider and model,
// permissions.approval_timeout its interactions' timeout.
func (s *Service) openV2Session(ctx context.Context, ac obj) (*session, error) {
	workspace, name := "", ""
	cfg := sessionConfig{interactionTimeout: s.opts.InteractionTimeout}
	if ac != nil {
		ws, err := ac.sub("agentConfig.", "workspace")
		if err != nil {
			return nil, err
		}
		if ws != nil {
			if workspace, err = ws.str("agentConfig.workspace.", "working_dir"); err != nil {
				return nil, err
			}
		}
		if sess, err := ac.sub("agentConfig.", "session"); err != nil {
			return nil, err
		} else if sess != nil {
			if name, err = sess.str("agentConfig.session.", "name"); err != nil {
				return nil, err
			}
		}
		over, err := ac.sub("agentConfig.", "overrideBaseConfig")
		if err != nil {
			return nil, err
		}
		if over != nil {
			if model, err := over.sub("agentConfig.overrideBaseConfig.", "model"); err != nil {
				return nil, err
			} else if model != nil {
				const p = "agentConfig.overrideBaseConfig.model."
				if cfg.provider, err = model.str(p, "provider"); err != nil {
					return nil, err
				}
				if cfg.model, err = model.str(p, "model"); err != nil {
					return nil, err
				}
			}
			if perm, err := over.sub("agentConfig.overrideBaseConfig.", "permissions"); err != nil {
				return nil, err
			} else if perm != nil {
				if n, ok, err := perm.integer("agentConfig.overrideBaseConfig.permissions.", "approval_timeout", 1, 3600); err != nil {
					return nil, err
				} else if ok {
					cfg.interactionTimeout = time.Duration(n) * time.Second
				}
			}
		}
	}
	if workspace == "" {
		root, err := s.mgr.Workspace("")
		if err != nil {
			return nil, kerr(codeWorkspaceAccessDenied, nil, "workspace access denied: %v", err)
		}
		workspace = root
	}
	if !strings.HasPrefix(workspace, "/") {
		return nil, invalid(map[string]any{"field": "agentConfig.workspace.working_dir"}, "invalid params: agentConfig.workspace.working_dir must be an absolute path, not %q", workspace)
	}
	real, err := checkWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	if cfg.provider != "" || cfg.model != "" {
		if _, err := s.mgr.ProviderWith(cfg.provider, cfg.model); err != nil {
			return nil, kerr(codeConfigurationError, map[string]any{"provider": cfg.provider, "model": cfg.model},
				"configuration error: %s", s.rt.Secrets().String(err.Error()))
		}
	}
	return s.openSession(ctx, real, name, cfg)
}

func (s *Service) deleteSession(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	id, err := o.required("", "session_id")
	if err != nil {
		return nil, err
	}
	ss := s.lookup(id)
	if ss == nil {
		return map[string]any{"session_id": id, "status": "not_found", "cleanup_performed": false,
			"message": fmt.Sprintf("no session %s", id)}, nil
	}
	count, err := s.terminate(ss, "the session was deleted")
	if err != nil {
		return map[string]any{"session_id": id, "status": "not_found", "cleanup_performed": false,
			"message": fmt.Sprintf("session %s was terminated already", id)}, nil
	}
	return map[string]any{"session_id": id, "status": "deleted", "cleanup_performed": true,
		"message": fmt.Sprintf("session terminated after %d messages", count)}, nil
}

// userMessage is kaiak/client/user_message: kind (or message_type)
// tool_confirmation {request_id: interaction id, action: allow_once |
// always_allow | deny} answers an approval (always_allow approves this
// change only: every change is approved on its own); user_input {text} and
// elicitation_response {request_id?, user_data} answer the oldest pending
// choice or input; control_signal {action: cancel | stop} cancels the
// session's requests.
func (s *Service) userMessage(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	id, err := o.required("", "session_id")
	if err != nil {
		return nil, err
	}
	ss := s.lookup(id)
	if ss == nil {
		return nil, invalid(map[string]any{"session_id": id}, "Session ID '%s' not found or invalid", id)
	}
	kind, err := o.str("", "kind")
	if err != nil {
		return nil, err
	}
	if kind == "" {
		if kind, err = o.str("", "message_type"); err != nil {
			return nil, err
		}
	}
	if kind == "" {
		kind = "user_input"
	}
	payload, err := o.sub("", "payload")
	if err != nil {
		return nil, err
	}
	if payload == nil {
		payload = obj{}
	}
	if len(raw) > MaxStreamMessageBytes {
		return nil, limitError("userMessageBytes", map[string]any{"bytes": len(raw), "max": MaxStreamMessageBytes},
			"user message limit exceeded: %d bytes; the limit is 1 MB", len(raw))
	}
	ok := func(msg string) (map[string]any, error) {
		return map[string]any{"success": true, "message": msg, "notification_id": "notif-" + newUUID()}, nil
	}
	refuse := func(msg string) (map[string]any, error) {
		return map[string]any{"success": false, "message": msg, "notification_id": "notif-" + newUUID()}, nil
	}
	switch kind {
	case "tool_confirmation":
		target, err := payload.str("payload.", "request_id")
		if err != nil {
			return nil, err
		}
		if target == "" {
			if target, err = payload.str("payload.", "id"); err != nil {
				return nil, err
			}
		}
		if target == "" {
			target = s.oldestPending(ss, "approval")
		}
		action, err := payload.str("payload.", "action")
		if err != nil {
			return nil, err
		}
		var approved bool
		switch action {
		case "allow_once", "always_allow":
			approved = true
		case "deny":
		default:
			return nil, invalid(map[string]any{"field": "payload.action"}, "invalid params: payload.action %q is not one of allow_once, always_allow, deny", action)
		}
		data, _ := json.Marshal(approved)
		if _, err := s.respond(target, "approval", obj{"approved": data}); err != nil {
			return nil, err
		}
		return ok("Tool confirmation processed")
	case "user_input", "elicitation_response":
		text, err := payload.str("payload.", "text")
		if err != nil {
			return nil, err
		}
		if v := payload.anyValue("user_data"); v != nil && text == "" {
			if s, isStr := v.(string); isStr {
				text = s
			} else {
				text = compactJSON(v)
			}
		}
		target, _ := payload.str("payload.", "request_id")
		if target == "" {
			target = s.oldestPending(ss, "choice", "input")
		}
		if target == "" {
			return refuse("Notification received, but no interaction of this session is waiting for input")
		}
		s.mu.Lock()
		it := s.interactions[target]
		s.mu.Unlock()
		if it == nil {
			return nil, kerr(codeInteractionNotFound, map[string]any{"interaction_id": target}, "interaction not found: %s", target)
		}
		// A choice takes an option's label or, as v2 clients may send, a
		// free answer, which the model reads as it is.
		a := answer{text: text}
		if i := slices.Index(it.options, text); i >= 0 {
			a = answer{indices: []int{i}}
		}
		if it.kind != "choice" && it.kind != "input" {
			return nil, kerr(codeResponseInvalid, map[string]any{"interaction_id": it.id, "interaction_type": it.kind},
				"response validation failed: interaction %s expects %s response, not input", it.id, article(it.kind))
		}
		if _, err := s.deliver(it, a, "input"); err != nil {
			return nil, err
		}
		return ok("Notification received and validated")
	case "control_signal":
		action, err := payload.str("payload.", "action")
		if err != nil {
			return nil, err
		}
		switch action {
		case "cancel", "stop", "abort":
			ss.mu.Lock()
			active := append([]*request(nil), ss.active...)
			ss.mu.Unlock()
			for _, r := range active {
				r.cancel("cancelled by a control signal")
			}
			return ok(fmt.Sprintf("Control signal received: %d request(s) cancelled", len(active)))
		}
		return refuse(fmt.Sprintf("Control signal %q is not supported; cancel and stop are", action))
	}
	return nil, invalid(map[string]any{"field": "kind"}, "invalid params: kind %q is not one of tool_confirmation, user_input, elicitation_response, control_signal", kind)
}

// oldestPending is the session's oldest pending interaction of one of the
// kinds, or "".
func (s *Service) oldestPending(ss *session, kinds ...string) string {
	ss.mu.Lock()
	active := append([]*request(nil), ss.active...)
	ss.mu.Unlock()
	var best *interaction
	for _, r := range active {
		r.mu.Lock()
		for _, it := range r.pending {
			if contains(kinds, it.kind) && (best == nil || it.id < best.id) {
				best = it
			}
		}
		r.mu.Unlock()
	}
	if best == nil {
		return ""
	}
	return best.id
}

// executeCommand runs a Kaiak method in the LSP command form the v1.5
// recordings use: {command: METHOD, arguments: [PARAMS]}.
func (s *Service) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	command, err := o.required("", "command")
	if err != nil {
		return nil, err
	}
	args, _, err := o.list("", "arguments")
	if err != nil {
		return nil, err
	}
	var params json.RawMessage
	if len(args) > 0 {
		params = args[0]
	}
	handlers := map[string]func(context.Context, json.RawMessage) (map[string]any, error){
		"kaiak/generate_fix":        s.generateFix,
		"kaiak/delete_session":      s.deleteSession,
		"kaiak/client/user_message": s.userMessage,
		"kaiak/session/create":      s.sessionCreate,
		"kaiak/session/terminate":   s.sessionTerminate,
		"kaiak/session/status":      s.sessionStatus,
		"kaiak/fix/generate":        s.fixGenerate,
		"kaiak/fix/cancel":          s.fixCancel,
		"kaiak/interaction/respond": s.interactionRespond,
	}
	h, ok := handlers[command]
	if !ok {
		return nil, invalid(map[string]any{"field": "command"}, "invalid params: unknown command %q", command)
	}
	return h(ctx, params)
}
