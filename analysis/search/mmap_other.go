//go:build !unix

package search

import "os"

// mapFile reads the file where memory mapping is not available.
func mapFile(path string, _ int64) (text, error) {
	b, err := os.ReadFile(path)
	return text{data: b}, err
}
