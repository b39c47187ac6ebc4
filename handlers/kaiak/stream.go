package kaiak

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The stream: every notification of a request carries {session_id,
// request_id, message_id, timestamp, content}, is at most
// MaxStreamMessageBytes, and goes out in order, all before the request's
// request_completed.

// envelopeBytes is what a notification's envelope may take beside its
// content (ids, timestamp, method, framing).
const envelopeBytes = 1024

// contentLimit is the most a notification's content may take.
const contentLimit = MaxStreamMessageBytes - envelopeBytes

// send sends one stream notification of the request (in the request's
// era's shape), split or truncated to fit the message limit.
func (r *request) send(method string, content map[string]any, extra map[string]any) {
	redactContent(r.svc, method, content)
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	if r.completed {
		// request_completed is the request's last word: a straggler (a
		// question's timer firing as the request ends) is dropped.
		if r.conn != nil {
			r.conn.Logger().Debug("kaiak notification after request_completed dropped", "method", method, "request", r.id)
		}
		return
	}
	r.completed = method == "kaiak/stream/system" && content["event"] == "request_completed"
	now := time.Now()
	for _, part := range fit(method, content) {
		r.seq++
		params := map[string]any{"session_id": r.sessionID, "request_id": r.id, "message_id": fmt.Sprintf("msg-%d", r.seq),
			"timestamp": stamp(now), "content": part}
		for k, v := range extra {
			params[k] = v
		}
		m, p := method, any(params)
		if r.v2 {
			m, p = v2Notification, toV2(method, params)
		}
		if r.conn != nil {
			if err := r.conn.RPC().Notify(context.Background(), m, p); err != nil {
				r.conn.Logger().Debug("kaiak notification not delivered", "method", m, "err", err)
			}
		}
	}
	r.sess.mu.Lock()
	r.sess.updatedAt = now
	r.sess.mu.Unlock()
}

// redactContent hides known secrets in what the model and tools said;
// proposal contents stay as they are, since they are what gets written.
func redactContent(s *Service, method string, content map[string]any) {
	sec := s.rt.Secrets()
	for _, k := range []string{"text", "message", "details", "prompt"} {
		if v, ok := content[k].(string); ok {
			content[k] = sec.String(v)
		}
	}
	if method == "kaiak/stream/tool_call" {
		if p, ok := content["parameters"]; ok {
			content["parameters"] = sec.Value(p)
		}
		if res, ok := content["result"].(map[string]any); ok {
			for _, k := range []string{"data", "error"} {
				if v, ok := res[k].(string); ok {
					res[k] = sec.String(v)
				}
			}
		}
	}
}

// encodedLen is the length of v as JSON.
func encodedLen(v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(data)
}

// fit returns content as one or more contents within contentLimit: the
// text of ai_response and thinking is split into consecutive partial
// messages; other content has its longest strings truncated, each with a
// marker saying how much was left out, and says "truncated": true.
func fit(method string, content map[string]any) []map[string]any {
	size := encodedLen(content)
	if size <= contentLimit {
		return []map[string]any{content}
	}
	if text, ok := content["text"].(string); ok && (method == "kaiak/stream/ai_response" || method == "kaiak/stream/thinking") {
		rest := map[string]any{}
		for k, v := range content {
			rest[k] = v
		}
		rest["text"] = ""
		budget := contentLimit - encodedLen(rest) - 16
		var parts []map[string]any
		for _, chunk := range splitText(text, budget) {
			part := map[string]any{}
			for k, v := range rest {
				part[k] = v
			}
			part["text"] = chunk
			if method == "kaiak/stream/ai_response" {
				part["partial"] = true
			}
			parts = append(parts, part)
		}
		if method == "kaiak/stream/ai_response" {
			parts[len(parts)-1]["partial"] = content["partial"]
		}
		return parts
	}
	for size > contentLimit {
		over := size - contentLimit
		ref := longest(content)
		if ref == nil {
			break
		}
		cut := max(len(ref.value)-over-200, 0)
		for cut > 0 && !utf8.RuneStart(ref.value[cut]) {
			cut--
		}
		ref.set(ref.value[:cut] + fmt.Sprintf("\n…[truncated by kast: %d bytes left out to keep the stream message within 1 MB]", len(ref.value)-cut))
		content["truncated"] = true
		size = encodedLen(content)
	}
	return []map[string]any{content}
}

// splitText cuts text into pieces whose JSON encoding fits budget bytes,
// on rune boundaries.
func splitText(text string, budget int) []string {
	budget = max(budget, 64)
	var parts []string
	var b strings.Builder
	n := 2 // the quotes
	for _, r := range text {
		w := runeJSONLen(r)
		if n+w > budget && b.Len() > 0 {
			parts = append(parts, b.String())
			b.Reset()
			n = 2
		}
		b.WriteRune(r)
		n += w
	}
	if b.Len() > 0 || len(parts) == 0 {
		parts = append(parts, b.String())
	}
	return parts
}

// runeJSONLen is the most bytes r takes in a JSON string (control
// characters and HTML-sensitive ones are escaped as \u00XX).
func runeJSONLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029:
		return 6
	case r == utf8.RuneError:
		return 6
	}
	return utf8.RuneLen(r)
}

// stringRef is a string somewhere in a content tree.
type stringRef struct {
	value string
	set   func(string)
}

// longest finds the longest string in v.
func longest(v any) *stringRef {
	var best *stringRef
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if s, ok := x.(string); ok {
					if best == nil || len(s) > len(best.value) {
						m, key := t, k
						best = &stringRef{s, func(n string) { m[key] = n }}
					}
				} else {
					walk(x)
				}
			}
		case []any:
			for i, x := range t {
				if s, ok := x.(string); ok {
					if best == nil || len(s) > len(best.value) {
						a, idx := t, i
						best = &stringRef{s, func(n string) { a[idx] = n }}
					}
				} else {
					walk(x)
				}
			}
		}
	}
	walk(v)
	if best == nil || best.value == "" {
		return nil
	}
	return best
}

// toV2 is a v1 stream notification in v2's single shape, {request_id,
// session_id, kind, payload}: ai_message, thinking, tool_call,
// tool_response, user_interaction, error or system (progress goes out as a
// system event).
func toV2(method string, params map[string]any) map[string]any {
	content, _ := params["content"].(map[string]any)
	payload := map[string]any{"message_id": params["message_id"], "timestamp": params["timestamp"]}
	kind := "system"
	switch method {
	case "kaiak/stream/progress":
		payload["event"] = "progress"
		for k, v := range content {
			payload[k] = v
		}
	case "kaiak/stream/ai_response":
		kind = "ai_message"
		for k, v := range content {
			payload[k] = v
		}
	case "kaiak/stream/thinking":
		kind = "thinking"
		for k, v := range content {
			payload[k] = v
		}
	case "kaiak/stream/tool_call":
		kind = "tool_call"
		payload["id"], payload["name"], payload["arguments"] = content["tool_call_id"], content["tool_name"], content["parameters"]
		if content["operation"] != "start" {
			kind = "tool_response"
			res, _ := content["result"].(map[string]any)
			payload["success"], payload["content"] = res["success"], res["data"]
			if e, ok := res["error"]; ok {
				payload["error"] = e
			}
		}
	case "kaiak/stream/user_interaction":
		kind = "user_interaction"
		for k, v := range content {
			payload[k] = v
		}
		payload["id"] = params["interaction_id"]
		if content["interaction_type"] == "approval" {
			payload["interaction_type"] = "tool_confirmation"
		}
	case "kaiak/stream/error":
		kind = "error"
		for k, v := range content {
			payload[k] = v
		}
	default: // system
		for k, v := range content {
			payload[k] = v
		}
	}
	return map[string]any{"request_id": params["request_id"], "session_id": params["session_id"], "kind": kind, "payload": payload}
}
