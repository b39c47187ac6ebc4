//go:build unix

package search

import (
	"errors"
	"io/fs"
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
	return mapFD(int(f.Fd()), size)
}

func mapFD(fd int, size int64) (text, error) {
	if size == 0 {
		return text{}, nil
	}
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return text{}, err
	}
	return text{data: b, release: func() { _ = unix.Munmap(b) }}, nil
}

// readRegular reads a file to search: into *buf below mapThreshold, mapped
// from it up. It goes straight to the system (open, fstat, read, close):
// os.File's poller registration was a third of the system calls of a
// search reading thousands of small files. The open does not block, so a
// FIFO put in a file's place cannot hang a search.
func readRegular(path string, buf *[]byte) (text, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return text{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return text{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if reason := notRegular(fileMode(st.Mode)); reason != "" {
		return text{}, &SkipError{Path: path, Reason: reason}
	}
	if st.Size >= mapThreshold {
		return mapFD(fd, st.Size)
	}
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b = grow(b, int(st.Size))
	for len(b) < int(st.Size) {
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return text{}, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break // shrank since the fstat
		}
		b = b[:len(b)+n]
	}
	if buf != nil {
		*buf = b
	}
	return text{data: b}, nil
}

func fileMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	}
	return fs.ModeIrregular
}
