//go:build !unix

package main

import "io/fs"

// allocated is the space a file takes on disk: its size, where the system
// does not say more.
func allocated(info fs.FileInfo) int64 { return info.Size() }
