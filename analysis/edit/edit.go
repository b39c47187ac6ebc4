// Package edit holds the engine side of workspace edits and the checks they
// need: paths confined to the workspace (package confine's rule) and byte
// offsets checked, edit plans applied atomically with conflict detection
// (hashes of the bytes the offsets index), and semantic insertion points. It
// knows nothing of JSON-RPC; handlers map its errors.
package edit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis/confine"
)

// Kind classifies an Error the way Kast's API errors are classified.
type Kind int

const (
	Validation Kind = iota
	NotFound
	Conflict
	PartialFailure
)

// Error is a refused request with details for the client.
type Error struct {
	Kind    Kind
	Msg     string
	Details map[string]string
}

func (e *Error) Error() string { return e.Msg }

func errorf(kind Kind, details map[string]string, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Details: details}
}

// Hash is the lowercase hex SHA-256 of b: the hash Kast compares in edit plans.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Confine validates a request path by the confinement rule (package
// confine) for access and returns the path to use: cleaned, links resolved,
// under its root as spelled. A refusal is a validation error whose details
// name the rule (and the link, if any); the messages of the plain cases are
// Kast's own.
func Confine(rule *confine.Rule, p string, access confine.Access) (string, error) {
	real, err := rule.Check(p, access)
	var ce *confine.Error
	if !errors.As(err, &ce) {
		return real, err
	}
	details := map[string]string{"filePath": p, "rule": string(ce.Reason)}
	if roots := rule.Roots(); len(roots) == 1 {
		details["workspaceRoot"] = roots[0]
	}
	msg := ce.Error()
	switch ce.Reason {
	case confine.NotAbsolute:
		msg = "File paths must be absolute"
	case confine.OutsideWorkspace:
		msg = "File path is outside the workspace root"
	default:
		details["link"], details["linkTarget"] = ce.Link, ce.Target
	}
	return "", &Error{Kind: Validation, Msg: msg, Details: details}
}

// CheckOffset validates a 0-based UTF-8 byte offset into text: within the
// file (the end included) and on a character boundary.
func CheckOffset(path string, text []byte, offset int) error {
	details := map[string]string{"filePath": path, "offset": fmt.Sprint(offset)}
	if offset < 0 || offset > len(text) {
		return errorf(Validation, details, "Offset %d is outside the file (%d bytes)", offset, len(text))
	}
	if offset < len(text) && !utf8.RuneStart(text[offset]) {
		return errorf(Validation, details, "Offset %d is inside a multi-byte UTF-8 character", offset)
	}
	return nil
}

// Point is a 1-based line and a 1-based byte column.
type Point struct{ Line, Column int }

// PointAt returns the 1-based line and column of a byte offset.
func PointAt(text []byte, offset int) Point {
	offset = max(0, min(offset, len(text)))
	start := bytes.LastIndexByte(text[:offset], '\n') + 1
	return Point{Line: bytes.Count(text[:offset], []byte{'\n'}) + 1, Column: offset - start + 1}
}

// LineAt returns the whole line holding offset, trailing space trimmed: the
// preview Kast shows for a location.
func LineAt(text []byte, offset int) string {
	offset = max(0, min(offset, len(text)))
	start := bytes.LastIndexByte(text[:offset], '\n') + 1
	end := len(text)
	if i := bytes.IndexByte(text[offset:], '\n'); i >= 0 {
		end = offset + i
	}
	return strings.TrimRight(string(text[start:end]), " \t\r")
}
