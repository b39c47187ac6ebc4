package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	f, err := os.Open(path)
	if err != nil {
		return text{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return text{}, err
	}
	if reason := notRegular(fi.Mode()); reason != "" {
		return text{}, &SkipError{Path: path, Reason: reason}
	}
	var t text
	if fi.Size() >= mapThreshold {
		t, err = mapFile(path, fi.Size())
	} else {
		t.data, err = readAll(f, fi.Size(), buf)
	}
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

// readAll reads f (size bytes when it was opened) into *buf or a new slice;
// what a file gained since it was opened may be left out, as by a search
// that ran a moment earlier.
func readAll(f *os.File, size int64, buf *[]byte) ([]byte, error) {
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b = slices.Grow(b, int(size))
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		// Reading as much as the file held when opened is enough: asking
		// once more only to hear EOF is a system call per file searched.
		if err == io.EOF || n == 0 && err == nil || len(b) >= int(size) && size > 0 {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, 4096)
		}
	}
	if buf != nil {
		*buf = b
	}
	return b, nil
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
