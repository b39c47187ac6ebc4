//go:build !unix

package agent

import "os"

// noFollow is not available here; session paths are checked before use.
const noFollow = 0

// tryLock is a no-op where advisory locks are not implemented: only the
// sessions open in this process count as live.
func tryLock(f *os.File) error { return nil }
