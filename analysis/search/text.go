package search

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"golang.org/x/text/encoding/unicode"
)

// Reading a file as grep does: a UTF-8 byte order mark is dropped (so ^
// matches after it), UTF-16 with a byte order mark is transcoded to UTF-8
// (x/text's decoder, which follows the mark's byte order), and what is left
// is binary when it holds a NUL byte, as ripgrep decides. Large files are
// memory-mapped rather than read, so a file of any size can be searched.

// mapThreshold is the size from which a file is memory-mapped: the index's
// own file limit, above which files are only ever scanned.
const mapThreshold = 2 << 20

// ErrBinary is returned for a file holding a NUL byte.
var ErrBinary = errors.New("binary file (holds a NUL byte)")

// SkipError says why a file was not searched.
type SkipError struct {
	Path   string
	Reason string
}

func (e *SkipError) Error() string { return e.Path + ": " + e.Reason }

// text is a file's searchable content; release frees a mapping.
type text struct {
	data    []byte
	release func()
}

// openText reads path as grep text.
func openText(path string) (text, error) { return openTextInto(path, nil) }

// openTextInto reads path as grep text, into *buf when it is not nil: a
// searcher reading thousands of files reuses one buffer instead of making
// garbage of every file.
func openTextInto(path string, buf *[]byte) (text, error) {
	t, err := readRegular(path, buf)
	if err != nil {
		return text{}, err
	}
	data, transcoded, err := decodeText(t.data)
	if err != nil {
		t.close()
		return text{}, &SkipError{Path: path, Reason: err.Error()}
	}
	if transcoded {
		t.close() // the mapping is no longer needed
		t = text{}
	}
	t.data = data
	if bytes.IndexByte(t.data, 0) >= 0 {
		t.close()
		return text{}, ErrBinary
	}
	return t, nil
}

// grow makes room for n bytes, keeping none of b's content.
func grow(b []byte, n int) []byte {
	return slices.Grow(b[:0], n)
}

func (t text) close() {
	if t.release != nil {
		t.release()
	}
}

// ReadText returns a file's content as search sees it (BOM dropped, UTF-16
// transcoded), for callers that cut snippets by the offsets search reports.
func ReadText(path string) ([]byte, error) {
	t, err := openText(path)
	if err != nil {
		return nil, err
	}
	if t.release == nil {
		return t.data, nil
	}
	defer t.close()
	return bytes.Clone(t.data), nil
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

func decodeText(b []byte) (data []byte, transcoded bool, err error) {
	switch {
	case bytes.HasPrefix(b, bomUTF8):
		return b[3:], false, nil
	case bytes.HasPrefix(b, bomUTF16LE), bytes.HasPrefix(b, bomUTF16BE):
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(b)
		if err != nil {
			return nil, false, fmt.Errorf("UTF-16 text that does not decode: %w", err)
		}
		return out, true, nil
	}
	return b, false, nil
}

// notRegular says why a file of this mode is not searched, or "".
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe), not a regular file"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device file, not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}
