package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Session files are kast's own: a client addresses them by id, or by a path
// that resolves inside the sessions folder, and kast deletes or appends to
// nothing else. Each open session holds its file's lock, so a file has one
// writer and empty-session cleanup never removes a live session's file.

// errLocked is a file another open file holds the lock of.
var errLocked = errors.New("locked")

// ErrSessionInUse is a session file another kast process has open: one
// writer per session file.
var ErrSessionInUse = errors.New("the session is open in another kast process; close it there first")

// SessionPathError is a session path a client named that is not a session
// file in kast's sessions folder.
type SessionPathError struct {
	Path string
	// Outside: the path, symlinks resolved, is outside the sessions folder;
	// otherwise it is inside but not a session file.
	Outside bool
}

func (e *SessionPathError) Error() string {
	if e.Outside {
		return fmt.Sprintf("%s is not in kast's sessions folder: sessions are resumed by id or by the path sessions/list reports", e.Path)
	}
	return fmt.Sprintf("%s is not a session file", e.Path)
}

// SessionIDError is a session id no stored session has.
type SessionIDError struct{ ID string }

func (e *SessionIDError) Error() string { return fmt.Sprintf("no stored session has id %q", e.ID) }

// within reports whether path is strictly inside root (both clean and
// absolute).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Locate resolves a path a client named to the session file it is, symlinks
// resolved: a regular .jsonl file in a workspace folder of the sessions
// folder. A path outside the folder is refused before the file system is
// asked about it, so the answer says nothing of files elsewhere. A missing
// file inside is an *fs.PathError wrapping fs.ErrNotExist.
func (st *Store) Locate(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &SessionPathError{Path: path, Outside: true}
	}
	root, rootErr := filepath.EvalSymlinks(st.Dir)
	dir, _ := filepath.Abs(st.Dir)
	if !within(dir, abs) && (rootErr != nil || !within(root, abs)) {
		return "", &SessionPathError{Path: path, Outside: true}
	}
	real, err := filepath.EvalSymlinks(abs)
	if rootErr != nil || errors.Is(err, fs.ErrNotExist) {
		return "", &fs.PathError{Op: "resume", Path: abs, Err: fs.ErrNotExist}
	}
	if err != nil || !within(root, real) {
		return "", &SessionPathError{Path: path, Outside: true}
	}
	rel, _ := filepath.Rel(root, real)
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() || len(strings.Split(rel, string(filepath.Separator))) != 2 || !strings.HasSuffix(real, ".jsonl") {
		return "", &SessionPathError{Path: path}
	}
	return real, nil
}

// sessionIDRE matches the ids kast and Kward give sessions (UUIDs, hex).
var sessionIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`)

// Find returns the path of the stored session whose id (its file's header
// id, which its name ends with) is id.
func (st *Store) Find(id string) (string, error) {
	if !sessionIDRE.MatchString(id) {
		return "", &SessionIDError{ID: id}
	}
	// Read the folders rather than glob: the data folder's own path may
	// hold glob metacharacters.
	folders, _ := os.ReadDir(st.Dir)
	suffix := "_" + id + ".jsonl"
	var matches []string
	for _, folder := range folders {
		files, _ := os.ReadDir(filepath.Join(st.Dir, folder.Name()))
		for _, f := range files {
			if strings.HasSuffix(f.Name(), suffix) {
				matches = append(matches, filepath.Join(st.Dir, folder.Name(), f.Name()))
			}
		}
	}
	sort.Strings(matches)
	for _, m := range matches {
		if real, err := st.Locate(m); err == nil {
			return real, nil
		}
	}
	return "", &SessionIDError{ID: id}
}

// open loads the session file at path (as Locate returned it) and takes its
// lock; a file another process holds is ErrSessionInUse.
func (st *Store) open(path string) (*SessionLog, *Loaded, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	if tryLock(f) != nil {
		f.Close()
		return nil, nil, ErrSessionInUse
	}
	log, ld, err := openLog(path, st.Redact, st.write, st.sync)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	log.lock = f
	return log, ld, nil
}

// remove deletes a session file, and only one inside the sessions folder; a
// file already gone is no error.
func (st *Store) remove(path string) error {
	real, err := st.Locate(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Remove(real); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// empty reports whether a loaded session holds nothing worth keeping: no
// tree entry on any branch and no name.
func (ld *Loaded) empty() bool { return ld.Entries == 0 && ld.Name == "" }

// RemoveEmpty deletes the session files of workspace cwd that hold nothing,
// sparing those open says are open here and those whose lock another
// process holds. It decides under the file's lock, so a session that gets
// its first message meanwhile is kept.
func (st *Store) RemoveEmpty(cwd string, open func(path string) bool) {
	dir := st.DirFor(cwd)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		if ld, err := Load(path); err != nil || !ld.empty() || open(path) {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
		if err != nil {
			continue
		}
		if tryLock(f) == nil {
			if ld, err := Load(path); err == nil && ld.empty() {
				os.Remove(path)
			}
		}
		f.Close()
	}
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
