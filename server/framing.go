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
	"strconv"
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

// errFrameTooLarge reports a frame over the cap; the stream has already skipped it.
var errFrameTooLarge = errors.New("frame too large")

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
	s := &Stream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10), maxFrame: maxFrame, log: log, ready: make(chan struct{})}
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
// -32600 for JSON that is not a JSON-RPC message) and skipped.
func (s *Stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
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
		case err != nil:
			if !s.closed.Load() {
				// The client ended its input (a pipelining client may write
				// everything, exit included, and close). jsonrpc2 refuses
				// every write once a read has failed, so the error is held
				// back until the calls already read have answered.
				s.drain()
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
		if trimmed := bytes.TrimSpace(frame); trimmed[0] != '[' {
			if _, derr := jsonrpc2.DecodeMessage(frame); derr != nil {
				s.reject(ctx, frame, jsonrpc2.InvalidRequest, "INVALID_REQUEST", "not a JSON-RPC 2.0 message: "+derr.Error())
				continue
			}
		}
		return frame, n, nil
	}
}

var errBadHeader = errors.New("malformed LSP header")

// readHeaderFrame reads one Content-Length framed body. Header names are
// matched case-insensitively. An oversized body is consumed and discarded so
// the next frame starts at the right place; only its head is kept, to recover
// the request id for the error reply.
func (s *Stream) readHeaderFrame() ([]byte, int64, error) {
	length, consumed := -1, 0
	for {
		line, err := s.in.ReadSlice('\n')
		consumed += len(line)
		if err != nil {
			if err == io.EOF && consumed > 0 {
				err = io.ErrUnexpectedEOF
			}
			if err == bufio.ErrBufferFull {
				err = errBadHeader
			}
			return nil, 0, err
		}
		if consumed > maxHeaderBytes {
			return nil, 0, errBadHeader
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if length < 0 {
				continue // stray blank line between frames; keep looking for a header
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, 0, fmt.Errorf("%w: %q", errBadHeader, truncate(line, 80))
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n < 0 {
				return nil, 0, fmt.Errorf("%w: bad Content-Length %q", errBadHeader, truncate(value, 40))
			}
			length = int(min(n, 1<<62))
		}
	}
	if length > s.maxFrame {
		head, err := s.discard(int64(length))
		if err != nil {
			return nil, 0, err
		}
		return head, int64(length), errFrameTooLarge
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(consumed + length), nil
}

// discard skips n body bytes, returning the first few kilobytes.
func (s *Stream) discard(n int64) ([]byte, error) {
	head := make([]byte, min(n, idSniffBytes))
	if _, err := io.ReadFull(s.in, head); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	if _, err := io.CopyN(io.Discard, s.in, n-int64(len(head))); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return head, nil
}

// readLine reads one newline-delimited frame, discarding (but measuring) a line
// over the cap instead of buffering it.
func (s *Stream) readLine() ([]byte, int64, error) {
	var buf []byte
	var n int64
	for {
		chunk, err := s.in.ReadSlice('\n')
		n += int64(len(chunk))
		if len(buf) <= s.maxFrame {
			buf = append(buf, chunk...)
		} else if len(buf) < idSniffBytes {
			buf = append(buf, chunk[:min(len(chunk), idSniffBytes-len(buf))]...)
		}
		switch err {
		case nil:
			if n-1 > int64(s.maxFrame) {
				return buf[:min(len(buf), idSniffBytes)], n - 1, errFrameTooLarge
			}
			return buf[:len(buf)-1], n, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if n == 0 {
				return nil, 0, io.EOF
			}
			return nil, 0, io.ErrUnexpectedEOF
		default:
			return nil, 0, err
		}
	}
}

// reject answers a frame that cannot be dispatched. The id is recovered from
// the frame's head when it comes before the params, as editors write it.
func (s *Stream) reject(ctx context.Context, frame []byte, code jsonrpc2.Code, dataCode, message string) {
	id := sniffID(frame)
	s.log.Warn("rejected frame", "code", dataCode, "id", string(id), "reason", message)
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    jsonrpc2.Code     `json:"code"`
		Message string            `json:"message"`
		Data    map[string]string `json:"data"`
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message, map[string]string{"code": dataCode}}})
	if _, err := s.WriteFrame(ctx, resp); err != nil {
		s.log.Warn("writing error reply failed", "err", err)
	}
}

// sniffID returns the raw "id" member of a (possibly truncated or invalid)
// JSON object, or nil when it cannot be found before the input ends.
func sniffID(frame []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		if key == "id" {
			if len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
				return raw
			}
			return nil
		}
	}
	return nil
}

// Write implements jsonrpc2.Stream.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	n, err := s.out.Write(ctx, msg)
	if _, outgoing := msg.(jsonrpc2.RequestMessage); !outgoing {
		s.unanswered.Add(-1)
	}
	if hook := s.afterReply.Load(); hook != nil && err == nil {
		// Only while a hook is pending is the message re-encoded to see
		// whether it is the awaited response.
		if raw, encErr := jsonrpc2.EncodeMessage(msg); encErr == nil && isResponseTo(raw, hook.id) && s.afterReply.CompareAndSwap(hook, nil) {
			go hook.fn()
		}
	}
	return n, err
}

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
	return s.out.(frameWriter).WriteFrame(ctx, data)
}

// drainLimit bounds how long exit, or the end of the client's input, waits
// for running calls to answer.
const drainLimit = 2 * time.Second

// drain waits, at most drainLimit, until every call handed to a handler has
// had its response written.
func (s *Stream) drain() {
	deadline := time.Now().Add(drainLimit)
	for s.unanswered.Load() > 0 && time.Now().Before(deadline) {
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
