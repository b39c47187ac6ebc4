//go:build !unix

package workspace

// indexLocked cannot probe the lock here: a locked library index is
// rebuilt in memory as before.
func indexLocked(string) bool { return false }

// processAlive cannot tell here: no copy is taken for gone.
func processAlive(int) bool { return true }
