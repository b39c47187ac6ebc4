//go:build unix

package search

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a large file read-only: searching it costs page cache, not
// heap, whatever its size.
func mapFile(path string, size int64) (text, error) {
	f, err := os.Open(path)
	if err != nil {
		return text{}, err
	}
	defer f.Close()
	if size == 0 {
		return text{}, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return text{}, err
	}
	return text{data: b, release: func() { _ = unix.Munmap(b) }}, nil
}
