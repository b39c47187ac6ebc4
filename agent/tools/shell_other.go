//go:build !linux

package tools

import "syscall"

// sysProcAttr puts a command in its own process group; only Linux offers
// a parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
