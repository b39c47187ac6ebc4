//go:build !unix

package search

import "os"

// mapFile reads the file where memory mapping is not available.
func mapFile(path string, _ int64) (text, error) {
	b, err := os.ReadFile(path)
	return text{data: b}, err
}

// readRegular reads a file to search, checking first that it is a regular
// file.
func readRegular(path string, buf *[]byte) (text, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return text{}, err
	}
	if reason := notRegular(fi.Mode()); reason != "" {
		return text{}, &SkipError{Path: path, Reason: reason}
	}
	if fi.Size() >= mapThreshold {
		return mapFile(path, fi.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return text{}, err
	}
	defer f.Close()
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b = grow(b, int(fi.Size()))
	for len(b) < int(fi.Size()) {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if n == 0 || err != nil {
			break
		}
	}
	if buf != nil {
		*buf = b
	}
	return text{data: b}, nil
}
