package workspace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/storage"
)

// A library index another kast process holds: badger locks its folder
// exclusively for as long as a process has it open, and a read-only open
// needs a shared lock, so no second process can read it in place. A
// complete library index is never written again, so a second process opens
// a private copy of it instead of rebuilding the library in memory: table
// files (immutable once written) are hard links, the rest (manifest, value
// and write-ahead logs, which the holder may still append to) are copied.
// The copy is removed at Close; one left by a process that died is removed
// by the next process that makes a copy of the same index.

// copySuffix separates an index folder from its private copies' pid.
const copySuffix = ".copy-"

// copyAttempts bounds retries when the holder compacts while we copy (a
// table the copied manifest names is gone).
const copyAttempts = 3

// privateLibraryCopy copies the locked library index at dir for this
// process and returns the copy's folder.
func privateLibraryCopy(dir string) (string, error) {
	removeStaleCopies(dir)
	// Hosts in one process (tests) each take their own copy.
	dst, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+copySuffix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", err
	}
	// The manifest first: tables it names are then still there (or the
	// open fails and the caller retries); tables written later are not in
	// it and badger drops them from the copy.
	if err := copyFile(filepath.Join(dir, "MANIFEST"), filepath.Join(dst, "MANIFEST")); err != nil {
		os.RemoveAll(dst)
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		os.RemoveAll(dst)
		return "", err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || name == "MANIFEST" || name == "LOCK" {
			continue
		}
		src, to := filepath.Join(dir, name), filepath.Join(dst, name)
		if strings.HasSuffix(name, ".sst") {
			if os.Link(src, to) == nil {
				continue
			}
		}
		if err := copyFile(src, to); err != nil && !os.IsNotExist(err) {
			os.RemoveAll(dst)
			return "", err
		}
	}
	return dst, nil
}

// openLibraryCopy opens a private copy of the complete library index at dir
// that another open holds (see above); ok is false when there is none to
// take or it cannot be opened whole, and the caller opens dir as before.
func openLibraryCopy(dir string, open func(dir string) (*storage.Index, error)) (ix *storage.Index, copyDir string, ok bool) {
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err != nil || !indexLocked(dir) {
		return nil, "", false
	}
	for range copyAttempts {
		c, err := privateLibraryCopy(dir)
		if err != nil {
			return nil, "", false
		}
		ix, err := open(c)
		// A notice means storage rebuilt or fell back: not the library.
		if err == nil && !ix.InMemory() && ix.Notice() == "" {
			return ix, c, true
		}
		if err == nil {
			ix.Close()
		}
		os.RemoveAll(c)
	}
	return nil, "", false
}

// copyFile copies src to dst keeping it sparse: badger preallocates its
// logs (hundreds of MB, mostly holes), so holes are skipped, not written.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := copyData(in, out, fi.Size()); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := out.Truncate(fi.Size()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyData copies the data regions of in (where the system can tell them
// from holes), else every non-zero chunk.
func copyData(in, out *os.File, size int64) error {
	if seekData != 0 {
		for pos := int64(0); pos < size; {
			start, err := in.Seek(pos, seekData)
			if err != nil {
				return nil // no data after pos (ENXIO)
			}
			end, err := in.Seek(start, seekHole)
			if err != nil {
				return copyAll(in, out)
			}
			if _, err := in.Seek(start, io.SeekStart); err != nil {
				return err
			}
			if _, err := out.Seek(start, io.SeekStart); err != nil {
				return err
			}
			if _, err := io.CopyN(out, in, end-start); err != nil {
				return err
			}
			pos = end
		}
		return nil
	}
	return copyAll(in, out)
}

// copyAll copies in to out from the start, seeking over zero chunks.
func copyAll(in, out *os.File) error {
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for {
		n, rerr := io.ReadFull(in, buf)
		var err error
		if allZero(buf[:n]) {
			_, err = out.Seek(int64(n), io.SeekCurrent)
		} else {
			_, err = out.Write(buf[:n])
		}
		if err != nil {
			return err
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// zeros is compared against (bytes.Equal is vectorised; a loop over 300 MB
// of holes took seconds).
var zeros = make([]byte, 1<<20)

func allZero(b []byte) bool { return bytes.Equal(b, zeros[:len(b)]) }

// removeStaleCopies removes the copies of dir whose process is gone.
func removeStaleCopies(dir string) {
	copies, _ := filepath.Glob(dir + copySuffix + "*")
	for _, c := range copies {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(c, dir+copySuffix), "-")
		pid, err := strconv.Atoi(pidText)
		if err == nil && pid != os.Getpid() && !processAlive(pid) {
			os.RemoveAll(c)
		}
	}
}
