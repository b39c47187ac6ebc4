// Package kimi projects the agent engine onto the two Kimi wires: the Kimi
// IDE extension's documented protocol (ide*.go: sendMessage, events as
// notifications named after the event) on the LSP connection and on `kast
// kimi --wire-stdio`, and kimi-cli's wire mode, protocol 1.10 (wire*.go:
// prompt answered at turn end, `event` notifications, `request`s for
// approvals) on `kast kimi --wire`. Both drive the same agent.Manager.
package kimi

import (
	"encoding/json"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
	"go.lsp.dev/jsonrpc2"
)

// The spec's error codes besides the standard ones.
const (
	CodeServerError      jsonrpc2.Code = -32000 // invalid state, unknown turn
	CodeConnectionFailed jsonrpc2.Code = -32001 // IDE: the model cannot be reached; wire: LLM not set
	CodeTimeout          jsonrpc2.Code = -32002 // IDE: an approval timed out
	CodeProviderError    jsonrpc2.Code = -32003 // wire: the chat provider failed
)

// DefaultApprovalTimeout is how long an IDE approval request waits.
const DefaultApprovalTimeout = 60 * time.Second

// askKinds are the tool kinds that ask unless --yolo: kimi-cli asks before
// file writes and shell commands and never before reads.
var askKinds = []agent.ToolKind{agent.KindWrite, agent.KindCommand, agent.KindOther}

// serverError is a -32000 error with a machine-readable code.
func serverError(code jsonrpc2.Code, dataCode, message string) error {
	return server.Error(code, dataCode, message, nil)
}

// argsObject decodes a call's JSON arguments, or wraps text that is not an
// object.
func argsObject(args string) map[string]any {
	m := map[string]any{}
	if args != "" && json.Unmarshal([]byte(args), &m) != nil {
		return map[string]any{"raw": args}
	}
	return m
}

// str reads a string field of decoded arguments.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// clip bounds text shown to a client or the model.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
