package kward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// method is a Kward methods-table row whose result and error are redacted
// before they reach the wire (and the server's log lines about them), and
// whose *agent.InputError becomes invalid params.
func method[P, R any](k *Service, name string, class server.Class, h func(context.Context, P) (R, error)) server.Spec {
	return server.Request(name, class, func(ctx context.Context, p P) (any, error) {
		res, err := h(ctx, p)
		if err != nil {
			return nil, k.redactError(err)
		}
		return k.redact(res), nil
	})
}

// redact returns v as a redacted JSON value. Numbers are decoded as
// json.Number, so counts keep their exact value and are never redacted.
func (k *Service) redact(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if dec.Decode(&generic) != nil {
		return v
	}
	return k.secrets.Value(generic)
}

// redactParams redacts notification params; text deltas, the bulk of the
// traffic, take a fast path.
func (k *Service) redactParams(params any) any {
	if ev, ok := params.(kwardEvent); ok && (ev.Type == "assistantDelta" || ev.Type == "reasoningDelta") {
		if d, ok := ev.Payload["delta"].(string); ok {
			ev.Payload = map[string]any{"delta": k.secrets.String(d)}
			return ev
		}
	}
	return k.redact(params)
}

func (k *Service) redactError(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	err = engineError(err)
	var inputErr *agent.InputError
	if errors.As(err, &inputErr) {
		return server.InvalidParams("%s", k.secrets.String(inputErr.Message))
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		out := &jsonrpc2.Error{Code: rpcErr.Code, Message: k.secrets.String(rpcErr.Message)}
		if len(rpcErr.Data) > 0 {
			var data any
			if json.Unmarshal(rpcErr.Data, &data) == nil {
				out.Data, _ = json.Marshal(k.secrets.Value(data))
			}
		}
		return out
	}
	return server.Error(jsonrpc2.InternalError, server.CodeInternalError, k.secrets.String(err.Error()), nil)
}
