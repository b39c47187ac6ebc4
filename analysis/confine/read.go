package confine

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// ReadFile reads the file at path if the rule lets it be read. The check
// and the read are not one step: a folder may become a link out between
// them (a background indexer reads a file long after the scan listed it).
// So the file opened is checked again where the kernel says it is, and
// refused when that is outside every root.
func (r *Rule) ReadFile(path string) ([]byte, error) {
	real, err := r.Check(path, Read)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opened, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && under(r.real, opened) < 0 {
		return nil, &Error{Reason: SymlinkEscape, Path: path, Access: Read, Link: path, Target: opened, Roots: r.roots}
	}
	var buf bytes.Buffer
	if info, err := f.Stat(); err == nil {
		buf.Grow(int(info.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return buf.Bytes(), nil
}
