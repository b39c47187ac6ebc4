//go:build !unix

package main

import (
	"io/fs"
	"time"
)

// allocated is the space a file takes on disk: its size, where the system
// does not say more.
func allocated(info fs.FileInfo) int64 { return info.Size() }

// childrenCPU is unknown here: the scale table prints no CPU time.
func childrenCPU() time.Duration { return 0 }
