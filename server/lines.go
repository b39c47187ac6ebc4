package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// ErrFrameTooLarge reports a frame over the limit; the reader has already
// skipped it.
var ErrFrameTooLarge = errors.New("frame too large")

// errFrameTooLarge is the package's own name for it.
var errFrameTooLarge = ErrFrameTooLarge

// ReadLine reads one newline-delimited frame of at most limit bytes (the
// newline excluded) and returns it with its length. A longer line is read to
// its end but not kept: once it passes the limit only its head stays, to
// recover the request id for the error reply, and the error is
// ErrFrameTooLarge. A last line without a newline is a frame; io.EOF comes
// with the next call. Every NDJSON entry point reads through it, so none of
// them buffers a line past the limit.
func ReadLine(r *bufio.Reader, limit int) ([]byte, int64, error) {
	var (
		buf  []byte
		size int64
		over bool
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += int64(len(chunk))
		switch {
		case over:
		case size > int64(limit):
			over = true
			head := append(buf, chunk[:min(len(chunk), max(0, idSniffBytes-len(buf)))]...)
			buf = bytes.Clone(head[:min(len(head), idSniffBytes)])
		default:
			buf = append(buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil, err == io.EOF && size > 0:
			if over {
				return buf, size, ErrFrameTooLarge
			}
			return buf, size, nil
		default:
			return nil, size, err
		}
	}
}

// ErrorReply encodes a JSON-RPC error response whose data is {"code":
// dataCode}, for a frame answered before any handler sees it. A nil id is
// sent as null. Invalid UTF-8 in the message or id is replaced.
func ErrorReply(id json.RawMessage, code int64, dataCode, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int64             `json:"code"`
		Message string            `json:"message"`
		Data    map[string]string `json:"data"`
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message, map[string]string{"code": dataCode}}})
	return ValidUTF8(resp)
}

// ValidUTF8 returns data with every invalid UTF-8 sequence replaced by
// U+FFFD. In JSON text such bytes can only sit inside strings, so the result
// is still the same JSON, and a client's decoder never sees a bad byte
// echoed from its own input.
func ValidUTF8(data []byte) []byte {
	if utf8.Valid(data) {
		return data
	}
	return bytes.ToValidUTF8(data, []byte("\uFFFD"))
}

// SniffID returns the raw "id" member of a (possibly truncated or invalid)
// JSON object, or nil when it cannot be found before the input ends.
func SniffID(frame []byte) json.RawMessage {
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
