//go:build unix

package agent

import (
	"errors"
	"os"
	"syscall"
)

// noFollow makes opening a session file fail when its last component is a
// symlink, so a link swapped in after a path was checked is not written
// through.
const noFollow = syscall.O_NOFOLLOW

// tryLock takes an exclusive advisory lock on f without waiting. It returns
// errLocked only when another open file (in this or another process) holds
// it; a file system without locks counts as unlocked.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return nil
}
