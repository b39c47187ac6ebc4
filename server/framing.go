package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// DefaultMaxFrame is the largest message body accepted before it is discarded
// and answered with an error; a larger one would only be an editor bug or an
// attack, and reading it into memory would cost more than the request is worth.
const DefaultMaxFrame = 100 << 20

// Framing names a wire framing.
type Framing string

const (
	FramingAuto    Framing = "auto"   // decided by the first byte of the stream
	FramingHeader  Framing = "header" // LSP Content-Length headers
	FramingNDJSON  Framing = "ndjson" // one JSON value per line
	maxHeaderBytes         = 64 << 10
	idSniffBytes           = 64 << 10
)

// Stream is a jsonrpc2.Stream that reads frames itself, so that a frame the
// library would treat as fatal (malformed JSON, a non-request object, an
// oversized body) is answered with an error and skipped while the connection
// stays up. Writes go through the library's own stream for the chosen framing,
// which serialises concurrent writers.
type Stream struct {
	conn     io.ReadWriteCloser
	in       *bufio.Reader
	maxFrame int
	log      *slog.Logger

	once    sync.Once
	framing Framing
	out     jsonrpc2.Stream
	ready   chan struct{} // closed once framing is known and out is set

	// afterReply runs once the response with a given id has been written.
	afterReply atomic.Pointer[replyHook]
	// unanswered counts calls handed to handlers whose response is not yet
	// written, so exit can let them reach the client before the stream closes.
	unanswered atomic.Int64
	// closed is set by Close, so a read failing because we closed the stream
	// is told apart from the client ending its input.
	closed atomic.Bool
	// endWait is how long, once the input ends, calls already read may take
	// to answer (see Options.EndOfInputWait).
	endWait time.Duration
	// inputEnded is closed once reading has stopped for good (the client
	// ended its input, after endWait), so handlers that wait on their own
	// (a prompt answered at its turn's end) can give up: the connection
	// cannot end while they run.
	inputEnded chan struct{}
	endOnce    sync.Once
	// stringIDs applies Profile.StringIDs (ids.go).
	stringIDs bool
	// chosen routes the replies to calls sent under a caller's id (calls.go).
	chosen chosenCalls
	// resync is set after a malformed header block: the next read skips to
	// the next Content-Length header.
	resync bool
}

type replyHook struct {
	id []byte // the request id as it appeared on the wire
	fn func()
}

// NewStream returns a stream over conn. With FramingAuto the framing is taken
// from the first non-blank byte: '{' or '[' mean newline-delimited JSON,
// anything else an LSP header. maxFrame <= 0 means DefaultMaxFrame.
func NewStream(conn io.ReadWriteCloser, framing Framing, maxFrame int, log *slog.Logger) *Stream {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Stream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10), maxFrame: maxFrame, log: log, ready: make(chan struct{}),
		inputEnded: make(chan struct{})}
	if framing != FramingAuto && framing != "" {
		s.setFraming(framing)
	}
	return s
}

// Framing reports the framing in use, or FramingAuto before the first byte.
func (s *Stream) Framing() Framing {
	select {
	case <-s.ready:
		return s.framing
	default:
		return FramingAuto
	}
}

func (s *Stream) setFraming(f Framing) {
	s.once.Do(func() {
		s.framing = f
		if f == FramingNDJSON {
			s.out = jsonrpc2.NewNDJSONStream(s.conn)
		} else {
			s.out = jsonrpc2.NewHeaderStream(s.conn)
		}
		close(s.ready)
	})
}

// detect peeks past leading whitespace to choose the framing.
func (s *Stream) detect() error {
	for {
		b, err := s.in.Peek(1)
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = s.in.ReadByte()
			continue
		case '{', '[':
			s.setFraming(FramingNDJSON)
		default:
			s.setFraming(FramingHeader)
		}
		return nil
	}
}

// Read implements jsonrpc2.Stream.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	return msg, n, err
}

// ReadFrame returns the next well-formed JSON-RPC frame. Frames that cannot be
// dispatched are answered here (-32700 for bad JSON or an oversized frame,
// -32600 for JSON that is not a JSON-RPC message) and skipped. An error
// ends the input for good (InputEnded).
func (s *Stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	frame, n, err := s.readFrame(ctx)
	if err != nil {
		s.endOnce.Do(func() { close(s.inputEnded) })
	}
	return frame, n, err
}

func (s *Stream) readFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if s.Framing() == FramingAuto {
			if err := s.detect(); err != nil {
				return nil, 0, err
			}
		}
		var (
			frame []byte
			n     int64
			err   error
		)
		if s.framing == FramingNDJSON {
			frame, n, err = s.readLine()
		} else {
			frame, n, err = s.readHeaderFrame()
		}
		switch {
		case errors.Is(err, errFrameTooLarge):
			s.reject(ctx, frame, jsonrpc2.InvalidRequest, "FRAME_TOO_LARGE",
				fmt.Sprintf("message of %d bytes exceeds the %d byte limit and was discarded", n, s.maxFrame))
			continue
		case errors.Is(err, errBadHeader):
			s.reject(ctx, nil, jsonrpc2.ParseError, "INVALID_HEADER", err.Error())
			continue
		case errors.Is(err, errShortBody):
			s.reject(ctx, frame, jsonrpc2.ParseError, "INVALID_HEADER", fmt.Sprintf(
				"Content-Length %d is larger than the %d-byte message that precedes the next header; the message was discarded", n, len(frame)))
			continue
		case errors.Is(err, errTruncated):
			// The input ended inside a frame: say so, then end as cleanly as
			// at the end of a whole frame.
			msg := "the input ended inside a message's header"
			if n > 0 {
				msg = fmt.Sprintf("the input ended %d bytes into a %d-byte message; it was discarded", len(frame), n)
			}
			s.reject(ctx, frame, jsonrpc2.ParseError, "INVALID_HEADER", msg)
			err = io.EOF
			fallthrough
		case err != nil:
			if !s.closed.Load() {
				// The client ended its input (a pipelining client may write
				// everything, exit included, and close). jsonrpc2 refuses
				// every write once a read has failed, so the error is held
				// back until the calls already read have answered.
				s.drain(s.endWait)
			}
			return nil, 0, err
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			if s.framing == FramingNDJSON {
				continue // a blank line between NDJSON messages is harmless
			}
			s.reject(ctx, nil, jsonrpc2.ParseError, "PARSE_ERROR", "empty message body")
			continue
		}
		if !json.Valid(frame) {
			s.reject(ctx, frame, jsonrpc2.ParseError, "PARSE_ERROR", "message is not valid JSON")
			continue
		}
		if s.stringIDs {
			if reason := stringIDViolation(frame); reason != "" {
				s.log.Warn("rejected frame", "code", CodeInvalidRequest, "reason", reason)
				_, _ = s.WriteFrame(ctx, ErrorReply(nil, int64(jsonrpc2.InvalidRequest), CodeInvalidRequest, "Invalid request"))
				continue
			}
		}
		if trimmed := bytes.TrimSpace(frame); trimmed[0] != '[' {
			if _, derr := jsonrpc2.DecodeMessage(frame); derr != nil {
				s.reject(ctx, frame, jsonrpc2.InvalidRequest, "INVALID_REQUEST", "not a JSON-RPC 2.0 message: "+derr.Error())
				continue
			}
			frame = withNullID(frame)
			if s.chosen.deliver(frame) {
				continue
			}
		}
		if s.stringIDs {
			frame = inboundID(frame)
		}
		return frame, n, nil
	}
}

// discard skips n body bytes, returning the first few kilobytes.
func (s *Stream) discard(n int64) ([]byte, error) {
	head := make([]byte, min(n, idSniffBytes))
	if k, err := io.ReadFull(s.in, head); err != nil {
		return head[:k], errTruncated
	}
	if _, err := io.CopyN(io.Discard, s.in, n-int64(len(head))); err != nil {
		return head, errTruncated
	}
	return head, nil
}

// readLine reads one newline-delimited frame (see ReadLine).
func (s *Stream) readLine() ([]byte, int64, error) {
	return ReadLine(s.in, s.maxFrame)
}

// reject answers a frame that cannot be dispatched. The id is recovered from
// the frame's head when it comes before the params, as editors write it.
func (s *Stream) reject(ctx context.Context, frame []byte, code jsonrpc2.Code, dataCode, message string) {
	id := SniffID(frame)
	s.log.Warn("rejected frame", "code", dataCode, "id", string(id), "reason", message)
	if _, err := s.WriteFrame(ctx, ErrorReply(id, int64(code), dataCode, message)); err != nil {
		s.log.Warn("writing error reply failed", "err", err)
	}
}

// Write implements jsonrpc2.Stream. The message is encoded here, not by the
// library's stream, so that invalid UTF-8 echoed from the client (a method
// name in an error message, a string id) is replaced before it is sent.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	bp := encodeBufs.Get().(*[]byte)
	raw := jsonrpc2.AppendMessage((*bp)[:0], msg)
	if s.stringIDs {
		raw = outboundID(raw)
	}
	n, err := s.writeRaw(ctx, raw)
	if isResponse(msg) {
		s.unanswered.Add(-1)
	}
	if hook := s.afterReply.Load(); hook != nil && err == nil {
		if isResponseTo(raw, hook.id) && s.afterReply.CompareAndSwap(hook, nil) {
			go hook.fn()
		}
	}
	if cap(raw) <= 1<<20 { // a rare huge reply is not kept
		*bp = raw[:0]
		encodeBufs.Put(bp)
	}
	return n, err
}

// encodeBufs holds the buffers Write encodes into; the library's stream
// copies each frame into its own before writing.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// isResponseTo reports whether raw is a response (no method) with the id.
func isResponseTo(raw, id []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Method == nil && bytes.Equal(bytes.TrimSpace(m.ID), id)
}

// WriteFrame writes an already encoded message; the connection uses it for
// batch replies.
func (s *Stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	<-s.ready
	var batch []json.RawMessage
	if json.Unmarshal(data, &batch) == nil {
		s.unanswered.Add(-int64(len(batch)))
	}
	return s.writeRaw(ctx, data)
}

// writeRaw sends an encoded message; every frame kast writes passes here.
func (s *Stream) writeRaw(ctx context.Context, data []byte) (int64, error) {
	return s.out.(frameWriter).WriteFrame(ctx, ValidUTF8(withDataCodes(restoreNullIDs(data))))
}

// withDataCodes gives every error in an encoded reply a data.code. The
// handler chain's errors have one (wireError), but the library answers an
// empty batch, and a batch member that is not a request, itself with a bare
// error. Error replies are small: a large frame, or one without an error
// object, passes untouched.
func withDataCodes(frame []byte) []byte {
	if len(frame) > 64<<10 || !bytes.Contains(frame, []byte(`"error":{`)) {
		return frame
	}
	if t := bytes.TrimSpace(frame); len(t) == 0 || t[0] != '[' {
		if coded, ok := codedError(frame); ok {
			return coded
		}
		return frame
	}
	var batch []json.RawMessage
	if json.Unmarshal(frame, &batch) != nil {
		return frame
	}
	changed := false
	for i, m := range batch {
		if coded, ok := codedError(m); ok {
			batch[i], changed = coded, true
		}
	}
	if !changed {
		return frame
	}
	if out, err := json.Marshal(batch); err == nil {
		return out
	}
	return frame
}

// codedError returns the response m with the standard data.code added to
// its error, or false when m has no error or its error has data.
func codedError(m []byte) ([]byte, bool) {
	var r struct {
		Error *struct {
			Code    jsonrpc2.Code   `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(m, &r) != nil || r.Error == nil || len(r.Error.Data) > 0 || json.Unmarshal(m, &obj) != nil {
		return nil, false
	}
	r.Error.Data = json.RawMessage(Error(r.Error.Code, standardDataCode(r.Error.Code), "", nil).Data)
	e, err := json.Marshal(r.Error)
	if err != nil {
		return nil, false
	}
	obj["error"] = e
	out, err := json.Marshal(obj)
	return out, err == nil
}

// isResponse tells a reply from a server-sent call or notification. The
// library hands its own sends to Write as unexported wire values (callWire,
// notificationWire, responseWire), which do not implement RequestMessage, so
// only the response type's name sets them apart. Counting a notification as a
// reply let exit close the connection before a running call had answered.
func isResponse(msg jsonrpc2.Message) bool {
	switch msg.(type) {
	case *jsonrpc2.Response:
		return true
	case jsonrpc2.RequestMessage:
		return false
	}
	t := reflect.TypeOf(msg)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name() == "responseWire"
}

// drainLimit bounds how long exit, or by default the end of the client's
// input, waits for running calls to answer.
const drainLimit = 2 * time.Second

// drain waits until every call handed to a handler has had its response
// written, or the stream is closed and none can be: at most limit, or
// without bound when limit is negative; 0 means drainLimit.
func (s *Stream) drain(limit time.Duration) {
	if limit == 0 {
		limit = drainLimit
	}
	deadline := time.Now().Add(limit)
	for s.unanswered.Load() > 0 && !s.closed.Load() && (limit < 0 || time.Now().Before(deadline)) {
		time.Sleep(2 * time.Millisecond)
	}
}

type frameWriter interface {
	WriteFrame(context.Context, []byte) (int64, error)
}

// Close implements jsonrpc2.Stream. It also releases a writer still waiting
// for the framing to be known.
func (s *Stream) Close() error {
	s.closed.Store(true)
	s.setFraming(FramingHeader)
	return s.conn.Close()
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
