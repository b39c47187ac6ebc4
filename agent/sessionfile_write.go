package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Session files are written so that a crash or a full disk never costs a
// record already written: a record is one line written with one write call,
// a write that fails or falls short is cut back to where the line began,
// and the file is synced at turn boundaries and after tool results.

// writeFunc writes b to f; tests put one in place that fails half-way, the
// way a full disk does.
type writeFunc func(f *os.File, b []byte) (int, error)

func osWrite(f *os.File, b []byte) (int, error) { return f.Write(b) }

// syncFunc makes f's content durable; tests put one in place that records
// what each call made durable, or fails the way a disk can.
type syncFunc func(f *os.File) error

func osSync(f *os.File) error { return f.Sync() }

// DiskFullError is a session write that failed for lack of room.
type DiskFullError struct {
	Path string
	Err  error
}

func (e *DiskFullError) Error() string {
	cause := e.Err
	var pe *os.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err // the path is said already
	}
	return fmt.Sprintf("the disk holding %s is full: free some space and try again (%v)", e.Path, cause)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// writeError explains err, from writing path, as a full disk when it is one.
func writeError(path string, err error) error {
	if err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return &DiskFullError{Path: path, Err: err}
	}
	return err
}

// writeLine appends line, which ends in a newline, to f (opened for
// appending, with no other writer) in one write call. When the write fails,
// falls short or cannot be synced, the file is truncated back to its size
// before, so it never holds half a line. A nil write or sync is the
// system's own.
func writeLine(f *os.File, write writeFunc, sync syncFunc, line []byte, durable bool) error {
	if write == nil {
		write = osWrite
	}
	if sync == nil {
		sync = osSync
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	start := fi.Size()
	n, err := write(f, line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err == nil && durable {
		err = sync(f)
	}
	if err != nil {
		if terr := f.Truncate(start); terr != nil {
			return errors.Join(err, fmt.Errorf("removing the partial record: %w", terr))
		}
		return err
	}
	return nil
}

// appendLocked writes one record as one line; durable makes it durable
// before returning (see needsSync).
func (l *SessionLog) appendLocked(rec any, durable bool) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if l.redact != nil {
		line = l.redact.JSON(line)
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|noFollow, 0o600)
	if err != nil {
		return err
	}
	err = writeLine(f, l.write, l.sync, append(line, '\n'), durable)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return writeError(l.path, err)
}

// needsSync says whether appending m ends a step worth making durable at
// once: a user message starts a turn, a tool message is a tool's result, an
// assistant message without tool calls ends the turn. An assistant message
// calling tools is synced with its first result, a moment later.
func needsSync(m Message) bool {
	return m.Role != RoleAssistant || len(m.ToolCalls) == 0
}

// createFile writes a new session file holding line (the header) and syncs
// it and its folder. On failure nothing is left behind: no empty file for
// a full disk to leave.
func createFile(path string, write writeFunc, sync syncFunc, line []byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return nil, writeError(path, err)
	}
	if err := writeLine(f, write, sync, line, true); err != nil {
		f.Close()
		os.Remove(path)
		return nil, writeError(path, err)
	}
	syncDir(filepath.Dir(path))
	return f, nil
}

// syncDir makes a new file's name durable. It is best effort: some file
// systems cannot sync folders, and the file's own data is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// tornTail returns, for a file's content, the size to cut it back to when
// its last line is unfinished (a write cut by a crash), so the next record
// starts on a line of its own, and whether a newline should be added
// instead, when that last line is a whole record lacking only its newline.
func tornTail(data []byte) (cut int64, addNewline bool) {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return -1, false
	}
	last := bytes.LastIndexByte(data, '\n') + 1
	if json.Valid(data[last:]) {
		return -1, true
	}
	return int64(last), false
}

// mendTail makes the file at path end with a whole line, as tornTail says.
func (l *SessionLog) mendTail(cut int64, addNewline bool) error {
	if cut < 0 && !addNewline {
		return nil
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|noFollow, 0o600)
	if err != nil {
		return err
	}
	if addNewline {
		err = writeLine(f, l.write, l.sync, []byte{'\n'}, true)
	} else if err = f.Truncate(cut); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return writeError(l.path, err)
}
