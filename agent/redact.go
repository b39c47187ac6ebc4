package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// secretKeyRE matches the names of fields that hold secrets.
var secretKeyRE = regexp.MustCompile(`(?i)token|secret|api[_-]?key|authorization|password|credential`)

// publicKeys match secretKeyRE but name public data clients need.
var publicKeys = map[string]bool{
	"apiKeyProviders": true, "authorizationUrl": true, "privateCredentialStorage": true,
	"authenticationMethods": true, "keyEnv": true,
}

// secretValueRE matches secrets recognisable by their form: bearer
// credentials, OpenAI/Anthropic/OpenRouter-style keys, JWTs.
var secretValueRE = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{8,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)

// Redactor removes secrets from values: by key (any string under a
// secret-looking field name) and by value (known secrets and secret-looking
// strings anywhere). Numbers are never redacted, so token counts such as
// tokensBefore survive. It is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret containing another goes whole
}

// Add registers known secret values; short strings are ignored since they
// would blank out ordinary text.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) < 6 || containsString(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// String redacts secrets found in s.
func (r *Redactor) String(s string) string {
	if r != nil {
		r.mu.RLock()
		for _, secret := range r.secrets {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, Redacted)
			}
		}
		r.mu.RUnlock()
	}
	return secretValueRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:7] + Redacted
		}
		return Redacted
	})
}

// JSON replaces the known secret values (not the patterns) in encoded JSON
// text, in their encoded form, so the text stays valid JSON.
func (r *Redactor) JSON(text []byte) []byte {
	if r == nil {
		return text
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		enc, _ := json.Marshal(secret)
		enc = enc[1 : len(enc)-1] // drop the quotes
		if bytes.Contains(text, enc) {
			text = bytes.ReplaceAll(text, enc, []byte(Redacted))
		}
	}
	return text
}

// Value redacts a decoded JSON value (maps, slices, strings, numbers) and
// returns the redacted copy; json.Numbers become int64 or float64.
func (r *Redactor) Value(v any) any {
	return r.value(v, false)
}

func (r *Redactor) value(v any, secret bool) any {
	switch v := v.(type) {
	case string:
		if secret && v != "" {
			return Redacted
		}
		return r.String(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = r.value(x, secret || SecretKey(k))
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = r.value(x, secret)
		}
		return out
	case json.Number: // decoded with UseNumber: keep integers exact
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// SecretKey reports whether a field named key holds a secret.
func SecretKey(key string) bool {
	return !publicKeys[key] && secretKeyRE.MatchString(key)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
