package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Kast's daemon registry: Kast's CLI, its agent skills and its LSP adapter
// find a workspace's daemon through <installRoot>/runtime/daemons/daemons.json,
// a pretty-printed JSON array of entries keyed by workspaceRoot, backendName
// and pid, rewritten whole under a lock. kast registers its unix-socket
// daemons there (beside its own descriptor, which also covers TCP), and
// `kast rpc` reads it to find a Kast daemon when no kast one runs.

// registryEntry is one daemon in Kast's registry.
type registryEntry struct {
	WorkspaceRoot  string `json:"workspaceRoot"`
	BackendName    string `json:"backendName"`
	BackendVersion string `json:"backendVersion"`
	Transport      string `json:"transport"`
	SocketPath     string `json:"socketPath"`
	PID            int    `json:"pid"`
	SchemaVersion  int    `json:"schemaVersion"`
}

func (e registryEntry) key() string {
	return fmt.Sprintf("%s:%s:%d", e.WorkspaceRoot, e.BackendName, e.PID)
}

// kastInstallRoot is Kast's install root: $KAST_INSTALL_ROOT, else
// ~/.local/share/kast.
func kastInstallRoot() (string, error) {
	if dir := os.Getenv("KAST_INSTALL_ROOT"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "kast"), nil
}

func registryPath() (string, error) {
	root, err := kastInstallRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "runtime", "daemons", "daemons.json"), nil
}

// updateRegistry rewrites the registry under its lock: change gets the
// entries of live daemons (dead ones are pruned on the way) and returns the
// new list.
func updateRegistry(change func([]registryEntry) []registryEntry) error {
	path, err := registryPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	entries := slices.DeleteFunc(readRegistryFile(path), func(e registryEntry) bool { return !processAlive(e.PID) })
	entries = change(entries)
	if entries == nil {
		entries = []registryEntry{}
	}
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// readRegistryFile reads the registry; a missing or unreadable one is empty.
func readRegistryFile(path string) []registryEntry {
	var entries []registryEntry
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &entries)
	}
	return entries
}

// registerDaemon adds (or replaces) this daemon's entry.
func registerDaemon(e registryEntry) error {
	return updateRegistry(func(entries []registryEntry) []registryEntry {
		entries = slices.DeleteFunc(entries, func(x registryEntry) bool { return x.key() == e.key() })
		return append(entries, e)
	})
}

// unregisterDaemon removes this daemon's entry.
func unregisterDaemon(e registryEntry) {
	_ = updateRegistry(func(entries []registryEntry) []registryEntry {
		return slices.DeleteFunc(entries, func(x registryEntry) bool { return x.key() == e.key() })
	})
}

// registeredDaemons lists the live daemons the registry has for root.
func registeredDaemons(root string) []registryEntry {
	path, err := registryPath()
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(readRegistryFile(path), func(e registryEntry) bool {
		return filepath.Clean(e.WorkspaceRoot) != root || e.Transport != "uds" || e.SocketPath == "" || !processAlive(e.PID)
	})
}

// processAlive reports whether pid is a running process: one that exists
// and is not a zombie (a killed daemon whose parent has not reaped it still
// answers kill(pid, 0)).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !procMounted()
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return !strings.ContainsRune("ZXx", rune(stat[i+2]))
	}
	return true
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// writeFileAtomic writes through a temporary file and a rename, so a reader
// never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kast-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
