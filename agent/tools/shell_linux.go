package tools

import "syscall"

// sysProcAttr puts a command in its own process group and has the kernel
// kill its leader when kast dies, whatever the way.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
