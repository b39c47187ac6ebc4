package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// parseListen validates a --listen address. TCP must be loopback: the
// protocol carries file contents and edits and has no authentication.
func parseListen(addr string) (network, address string, err error) {
	network, address, ok := strings.Cut(addr, ":")
	if !ok || address == "" {
		return "", "", fmt.Errorf("--listen %q: want unix:PATH or tcp:127.0.0.1:PORT", addr)
	}
	switch network {
	case "unix":
		return network, address, nil
	case "tcp":
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return "", "", fmt.Errorf("--listen %q: %v", addr, err)
		}
		if host != "localhost" {
			ip := net.ParseIP(host)
			if ip == nil || !ip.IsLoopback() {
				return "", "", fmt.Errorf("--listen %q: refusing a non-loopback address; use 127.0.0.1, ::1 or localhost", addr)
			}
		}
		return network, address, nil
	}
	return "", "", fmt.Errorf("--listen %q: unknown network %q; want unix or tcp", addr, network)
}

// acceptUntilDone hands every connection ln accepts to serve, each on its own
// goroutine, until ctx ends or SIGINT/SIGTERM arrives; then it closes ln and
// returns nil. Every listening entry point (kast lsp --listen, kast serve)
// accepts through it.
func acceptUntilDone(ctx context.Context, ln net.Listener, serve func(ctx context.Context, c net.Conn)) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go serve(ctx, c)
	}
}

// listenPrivate listens on address; a unix socket replaces a stale one,
// is readable by its owner only, and is removed when the listener closes.
func listenPrivate(network, address string) (net.Listener, error) {
	if network == "unix" {
		if err := removeStaleSocket(address); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		// net.UnixListener unlinks its socket file on Close.
		if err := os.Chmod(address, 0o600); err != nil {
			ln.Close()
			return nil, err
		}
	}
	return ln, nil
}

// removeStaleSocket deletes a socket file nobody is listening on, and refuses
// to take over one that is live or a path that is not a socket.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("--listen unix:%s: path exists and is not a socket", path)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return fmt.Errorf("--listen unix:%s: another server is already listening there", path)
	}
	return os.Remove(path)
}
