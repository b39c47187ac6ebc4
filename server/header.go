package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

var (
	errBadHeader = errors.New("malformed LSP header")
	// errShortBody: the JSON value ended before its Content-Length, and the
	// next frame's header followed it; the rest was left for that frame.
	errShortBody = errors.New("Content-Length larger than the message")
	// errTruncated: the input ended inside a frame.
	errTruncated = errors.New("input ended inside a message")
)

// readHeaderFrame reads one Content-Length framed body. Header names are
// matched case-insensitively. An oversized body is consumed and discarded so
// the next frame starts at the right place; only its head is kept, to recover
// the request id for the error reply. After a malformed header block the
// stream skips to the next Content-Length header (resync) instead of reading
// the body and every later frame as more headers.
func (s *Stream) readHeaderFrame() ([]byte, int64, error) {
	if s.resync {
		if err := s.skipToHeader(); err != nil {
			return nil, 0, err
		}
		s.resync = false
	}
	length, consumed, headers := -1, 0, 0
	for {
		line, err := s.in.ReadSlice('\n')
		consumed += len(line)
		if err != nil {
			if err == bufio.ErrBufferFull {
				return nil, 0, s.badHeader("header line longer than %d bytes", s.in.Size())
			}
			if err == io.EOF && (headers > 0 || len(bytes.TrimSpace(line)) > 0) {
				err = errTruncated
			}
			return nil, 0, err
		}
		if consumed > maxHeaderBytes {
			return nil, 0, s.badHeader("header block longer than %d bytes", maxHeaderBytes)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if headers == 0 {
				continue // stray blank line between frames; keep looking for a header
			}
			if length < 0 {
				return nil, 0, s.badHeader("header block without Content-Length")
			}
			break
		}
		headers++
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, 0, s.badHeader("%q", truncate(line, 80))
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n < 0 {
				return nil, 0, s.badHeader("bad Content-Length %q", truncate(value, 40))
			}
			length = int(min(n, 1<<62))
		}
	}
	if length > s.maxFrame {
		head, err := s.discard(int64(length))
		if err != nil {
			return head, int64(length), err
		}
		return head, int64(length), errFrameTooLarge
	}
	body, short, err := s.readBody(length)
	switch {
	case err == io.EOF:
		return body, int64(length), errTruncated
	case err != nil:
		return nil, 0, err
	case short:
		return body, int64(length), errShortBody
	}
	return body, int64(consumed + length), nil
}

// badHeader returns an errBadHeader and arms the resync.
func (s *Stream) badHeader(format string, args ...any) error {
	s.resync = true
	return fmt.Errorf("%w: %s", errBadHeader, fmt.Sprintf(format, args...))
}

// readBody reads up to length bytes. It stops early, leaving the rest
// unread, when the body's JSON value has ended and what follows it, past any
// whitespace, starts like a header (a 'C' of Content-Length or
// Content-Type): the length was too large and the next frame has begun
// (short). A client that sent a wrong length then gets an error rather than
// a server waiting for bytes that never come. Other bytes after the value
// are read as body, which then fails as JSON.
func (s *Stream) readBody(length int) (body []byte, short bool, err error) {
	body = make([]byte, 0, length)
	var v valueEnd
	for len(body) < length {
		if s.in.Buffered() == 0 {
			if _, err := s.in.Peek(1); err != nil {
				return body, false, err
			}
		}
		chunk, _ := s.in.Peek(min(s.in.Buffered(), length-len(body)))
		from := -1 // where the bytes after the value start in chunk
		if v.done {
			from = 0
		} else if end := v.feed(chunk); end >= 0 {
			from = end
		}
		if from >= 0 {
			k := bytes.IndexFunc(chunk[from:], func(r rune) bool { return !isSpace(r) })
			if k >= 0 && (chunk[from+k] == 'C' || chunk[from+k] == 'c') {
				body = append(body, chunk[:from+k]...)
				_, _ = s.in.Discard(from + k)
				return body, true, nil
			}
			if k >= 0 { // not a header: read the declared length
				v.done, v.untracked = false, true
			}
		}
		body = append(body, chunk...)
		_, _ = s.in.Discard(len(chunk))
	}
	return body, false, nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' }

// valueEnd finds where the first JSON object or array of a body ends,
// tracking only strings and nesting. Bodies that start otherwise are not
// tracked (done never becomes true).
type valueEnd struct {
	started, untracked, done bool
	inString, escaped        bool
	depth                    int
}

// feed scans the next bytes of the body and returns the index just past the
// value's end within p, or -1.
func (v *valueEnd) feed(p []byte) int {
	if v.untracked || v.done {
		return -1
	}
	i := 0
	if !v.started {
		for i < len(p) && isSpace(rune(p[i])) {
			i++
		}
		if i == len(p) {
			return -1
		}
		if p[i] != '{' && p[i] != '[' {
			v.untracked = true
			return -1
		}
		v.started = true
	}
	for i < len(p) {
		if v.escaped {
			v.escaped = false
			i++
			continue
		}
		if v.inString {
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return -1
			}
			i += j
			if p[i] == '\\' {
				v.escaped = true
			} else {
				v.inString = false
			}
			i++
			continue
		}
		j := bytes.IndexAny(p[i:], `"{}[]`)
		if j < 0 {
			return -1
		}
		i += j
		switch p[i] {
		case '"':
			v.inString = true
		case '{', '[':
			v.depth++
		default:
			v.depth--
			if v.depth == 0 {
				v.done = true
				return i + 1
			}
		}
		i++
	}
	return -1
}

// skipToHeader discards input up to the next "Content-Length" that starts
// the input, a line, or follows a JSON value's closing bracket, where the
// next frame of a desynchronised stream begins. It buffers nothing beyond
// bufio's own buffer.
func (s *Stream) skipToHeader() error {
	const name = "content-length"
	first := true
	for {
		buf, err := s.in.Peek(max(s.in.Buffered(), len(name)+1))
		for i := 0; i+len(name) <= len(buf); i++ {
			if (buf[i] == 'c' || buf[i] == 'C') && bytes.EqualFold(buf[i:i+len(name)], []byte(name)) &&
				((i == 0 && first) || (i > 0 && bytes.IndexByte([]byte("\n}]"), buf[i-1]) >= 0)) {
				_, _ = s.in.Discard(i)
				return nil
			}
		}
		if err != nil {
			_, _ = s.in.Discard(len(buf))
			return err
		}
		// Keep the tail that may begin a match; its first byte was tested
		// already and is kept as the byte before the next candidate.
		_, _ = s.in.Discard(len(buf) - len(name))
		first = false
	}
}
