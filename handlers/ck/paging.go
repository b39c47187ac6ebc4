package ck

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Results are paged through sessions kept in memory for a while; a cursor
// names a session and an offset, signed so a client cannot forge one.

type cursor struct {
	Session string `json:"session_id"`
	Offset  int    `json:"offset"`
	Params  string `json:"search_params_hash"`
	Time    int64  `json:"timestamp"`
	Version int    `json:"version"`
	Mac     string `json:"mac"`
}

func (s *Service) sign(c cursor) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s|%d|%s|%d|%d", c.Session, c.Offset, c.Params, c.Time, c.Version)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Service) encodeCursor(c cursor) string {
	c.Version = 1
	c.Mac = s.sign(c)
	b, _ := json.Marshal(c)
	return base64.StdEncoding.EncodeToString(b)
}

func (s *Service) decodeCursor(text, params string) (*session, int, error) {
	b, err := base64.StdEncoding.DecodeString(text)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Version != 1 {
		return nil, 0, invalid("invalid cursor")
	}
	if !hmac.Equal([]byte(c.Mac), []byte(s.sign(c))) {
		return nil, 0, invalid("invalid cursor: not issued by this server")
	}
	if c.Params != params {
		return nil, 0, invalid("invalid cursor: it belongs to a different query")
	}
	if s.Now().Sub(time.Unix(c.Time, 0)) > s.TTL {
		return nil, 0, invalid("cursor expired: repeat the search without a cursor")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[c.Session]
	if sess == nil || sess.params != params {
		return nil, 0, invalid("cursor expired: repeat the search without a cursor")
	}
	return sess, c.Offset, nil
}

func (s *Service) newSession(params string, matches []Match, pageSize int, summary map[string]any) *session {
	id := make([]byte, 16)
	rand.Read(id)
	sess := &session{id: base64.RawURLEncoding.EncodeToString(id), params: params, results: matches,
		pageSize: pageSize, summary: summary, created: s.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.sessions {
		if s.Now().Sub(v.created) > s.TTL {
			delete(s.sessions, k)
		}
	}
	if len(s.sessions) >= maxSessions { // drop the oldest
		var oldest *session
		for _, v := range s.sessions {
			if oldest == nil || v.created.Before(oldest.created) {
				oldest = v
			}
		}
		delete(s.sessions, oldest.id)
	}
	s.sessions[sess.id] = sess
	return sess
}

// page renders results [offset, offset+size) of a session.
func (s *Service) page(sess *session, offset, size int, elapsed time.Duration, indexing any) *Result {
	end := min(offset+size, len(sess.results))
	offset = min(offset, end)
	items := sess.results[offset:end]
	hasMore := end < len(sess.results)
	pag := map[string]any{"page_size": size, "current_page": offset/max(size, 1) + 1, "next_cursor": nil}
	if hasMore {
		pag["next_cursor"] = s.encodeCursor(cursor{Session: sess.id, Offset: end, Params: sess.params, Time: sess.created.Unix()})
	}
	out := map[string]any{}
	for k, v := range sess.summary {
		out[k] = v
	}
	out["results"] = map[string]any{"matches": items, "count": len(items), "total_count": len(sess.results),
		"has_more": hasMore, "truncated": hasMore}
	out["pagination"] = pag
	var b strings.Builder
	for i, m := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		sp := m.Match.Span
		score := m.Match.Score
		if m.Match.RRFScore != nil {
			score = m.Match.RRFScore
		}
		if m.Type == "regex_match" {
			fmt.Fprintf(&b, "%s:%d:%s\n", m.File.Path, m.Match.LineNumber, m.Match.Content)
			continue
		}
		fmt.Fprintf(&b, "%s:%d-%d", m.File.Path, sp.LineStart, sp.LineEnd)
		if score != nil {
			fmt.Fprintf(&b, " (%.4f)", *score)
		}
		b.WriteString("\n")
		if m.Match.Content != "" {
			b.WriteString(strings.TrimRight(m.Match.Content, "\n") + "\n")
		}
	}
	if len(items) == 0 {
		b.WriteString("No matches.\n")
	}
	if hasMore {
		fmt.Fprintf(&b, "\n%d of %d results shown; pass next_cursor for more.\n", end, len(sess.results))
	}
	if indexing != nil {
		fmt.Fprintf(&b, "(search %dms, indexing %v)\n", elapsed.Milliseconds(), indexing)
	}
	return &Result{Text: b.String(), JSON: out}
}
