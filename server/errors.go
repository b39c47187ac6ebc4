package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Machine-readable codes carried in error.data.code for the standard JSON-RPC
// and LSP errors. Protocol families add their own (VALIDATION_ERROR, …).
const (
	CodeParseError           = "PARSE_ERROR"
	CodeInvalidRequest       = "INVALID_REQUEST"
	CodeMethodNotFound       = "METHOD_NOT_FOUND"
	CodeInvalidParams        = "INVALID_PARAMS"
	CodeInternalError        = "INTERNAL_ERROR"
	CodeServerNotInitialized = "SERVER_NOT_INITIALIZED"
	CodeRequestCancelled     = "REQUEST_CANCELLED"
	CodeContentModified      = "CONTENT_MODIFIED"
)

// Error builds a JSON-RPC error whose data is {"code": dataCode, ...extra}.
// extra may be nil; its keys are merged into data next to "code".
func Error(code jsonrpc2.Code, dataCode, message string, extra map[string]any) *jsonrpc2.Error {
	data := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		data[k] = v
	}
	data["code"] = dataCode
	raw, err := json.Marshal(data)
	if err != nil {
		raw, _ = json.Marshal(map[string]string{"code": dataCode})
	}
	return &jsonrpc2.Error{Code: code, Message: message, Data: raw}
}

// Errorf is Error with a formatted message and no extra data.
func Errorf(code jsonrpc2.Code, dataCode, format string, args ...any) *jsonrpc2.Error {
	return Error(code, dataCode, fmt.Sprintf(format, args...), nil)
}

// InvalidParams reports a parameter the handler cannot accept.
func InvalidParams(format string, args ...any) *jsonrpc2.Error {
	return Errorf(jsonrpc2.InvalidParams, CodeInvalidParams, format, args...)
}

// ErrCancelled is the reply to a request cancelled by $/cancelRequest.
var ErrCancelled = Error(protocol.CodeRequestCancelled, CodeRequestCancelled, "request cancelled", nil)

// wireError normalises what a handler returned into an error that carries a
// data.code: cancellation becomes -32800, coded errors pass through, and a
// plain Go error becomes -32603 with its message kept.
func wireError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || (ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return ErrCancelled
	}
	var werr *jsonrpc2.Error
	if errors.As(err, &werr) {
		if len(werr.Data) > 0 {
			return err
		}
		return Error(werr.Code, standardDataCode(werr.Code), err.Error(), nil)
	}
	return Error(jsonrpc2.InternalError, CodeInternalError, err.Error(), nil)
}

func standardDataCode(code jsonrpc2.Code) string {
	switch code {
	case jsonrpc2.ParseError:
		return CodeParseError
	case jsonrpc2.InvalidRequest:
		return CodeInvalidRequest
	case jsonrpc2.MethodNotFound:
		return CodeMethodNotFound
	case jsonrpc2.InvalidParams:
		return CodeInvalidParams
	case jsonrpc2.ServerNotInitialized:
		return CodeServerNotInitialized
	case protocol.CodeRequestCancelled:
		return CodeRequestCancelled
	case protocol.CodeContentModified:
		return CodeContentModified
	}
	return CodeInternalError
}
