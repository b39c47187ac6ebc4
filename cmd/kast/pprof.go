package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

// servePprof serves the runtime's profiles on the loopback address named by
// KAST_PPROF (for example 127.0.0.1:6060), so a slow or large process can be
// profiled where it runs: go tool pprof http://127.0.0.1:6060/debug/pprof/heap.
// Only loopback addresses are accepted: the profiles name the user's files.
func servePprof() {
	addr := os.Getenv("KAST_PPROF")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		slog.Warn("KAST_PPROF ignored: want a loopback host:port", "value", addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		slog.Warn("KAST_PPROF: cannot listen", "addr", addr, "err", err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(ln, mux) }()
}
