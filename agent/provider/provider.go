// Package provider implements agent.Provider over the model APIs kast
// speaks: OpenAI-compatible chat completions, the OpenAI Responses API and
// Anthropic Messages, each through its official Go SDK.
package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/kast-dev/kast/agent"
)

// DefaultIdleTimeout is how long a stream may stay silent before it is
// abandoned and retried.
const DefaultIdleTimeout = 120 * time.Second

// Options tunes providers; the zero value is production behaviour.
type Options struct {
	// HTTPClient sends the requests; nil means a fresh http.Client.
	HTTPClient *http.Client
	// IdleTimeout bounds the silence between stream events; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// New returns the provider r describes.
func New(r agent.Resolved, opts Options) (agent.Provider, error) {
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	switch r.API {
	case agent.APIChat, "":
		return newChat(r, opts), nil
	case agent.APIResponses:
		return newResponses(r, opts), nil
	case agent.APIAnthropic:
		return newAnthropic(r, opts), nil
	}
	return nil, fmt.Errorf("%w: provider %s: unknown api %q; want chat, responses or anthropic", agent.ErrNoProvider, r.Name, r.API)
}

var errIdle = errors.New("stream idle timeout")

// idleWatch returns a context cancelled when kick is not called for d, and a
// stop function. Cancellation closes the HTTP stream, which ends the read.
func idleWatch(ctx context.Context, d time.Duration) (watched context.Context, kick func(), stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(d, func() { cancel(errIdle) })
	return ctx, func() { timer.Reset(d) }, func() { timer.Stop(); cancel(nil) }
}

// statusError is what both SDKs' API errors have in common.
type statusError struct {
	status int
	body   string
}

// classify turns a request or stream failure into an *agent.ProviderError
// with secrets scrubbed, or returns the context's error when the caller
// cancelled.
func classify(ctx, watched context.Context, name, apiKey string, status *statusError, err error, idle time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(context.Cause(watched), errIdle) {
		return &agent.ProviderError{Provider: name, Transient: true, Message: fmt.Sprintf("no data from the model for %s", idle)}
	}
	if status != nil {
		return &agent.ProviderError{Provider: name, Status: status.status, Transient: transientStatus(status.status, status.body),
			Message: Redact(errorMessage(status.body), apiKey)}
	}
	var netErr net.Error
	transient := errors.As(err, &netErr) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "EOF") ||
		strings.Contains(err.Error(), "connection reset")
	return &agent.ProviderError{Provider: name, Transient: transient, Message: Redact(err.Error(), apiKey)}
}

// transientStatus: rate limits and server errors are retried, except quota
// and billing failures that a retry cannot fix.
func transientStatus(status int, body string) bool {
	if status != http.StatusTooManyRequests && status < 500 {
		return false
	}
	lower := strings.ToLower(body)
	return !strings.Contains(lower, "insufficient_quota") && !strings.Contains(lower, "billing")
}

var errorMessageRE = regexp.MustCompile(`"message"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// errorMessage picks error.message out of an API error body.
func errorMessage(body string) string {
	if m := errorMessageRE.FindStringSubmatch(body); m != nil {
		return strings.ReplaceAll(m[1], `\"`, `"`)
	}
	if body = strings.TrimSpace(body); len(body) > 500 {
		body = body[:500]
	}
	return body
}

var secretRE = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+|sk-[A-Za-z0-9_-]{8,}`)

// Redact removes the key itself and key-looking strings from s.
func Redact(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "[REDACTED]")
	}
	return secretRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:7] + "[REDACTED]"
		}
		return "[REDACTED]"
	})
}

// dataURL encodes an image for the APIs that take URLs.
func dataURL(img agent.Image) string {
	return "data:" + img.MimeType + ";base64," + img.Data
}
