package lsp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server/servertest"
)

// An open Kotlin file with an unresolved call gets kast's own diagnostic,
// with its code, pushed and pulled, with no kotlinc installed; a library
// call inside a lambda (whose receiver kast cannot see) gets none.
func TestLSPKastOwnDiagnostics(t *testing.T) {
	e := startLSP(t, map[string]string{
		"src/app/Lib.kt": "package app\n\nfun area(w: Int, h: Int = 1): Int = w * h\n",
	})
	text := "package app\n\nfun bad(): Int = missingFn()\n\nfun ok(): String = buildString { append(area(2)) }\n\nfun wrong() = area(1, 2, 3)\n"
	if err := e.client.DidOpen(e.uri("src/app/Bad.kt"), "kotlin", 1, text); err != nil {
		t.Fatal(err)
	}
	type diag struct {
		Range struct {
			Start struct{ Line int } `json:"start"`
		} `json:"range"`
		Code, Source, Message string
		Severity              int
	}
	var pushed []diag
	err := e.client.AwaitNotifications(e.ctx, "textDocument/publishDiagnostics", func(notes []*servertest.Message) bool {
		for i := len(notes) - 1; i >= 0; i-- {
			var p struct {
				URI         string `json:"uri"`
				Diagnostics []diag `json:"diagnostics"`
			}
			_ = json.Unmarshal(notes[i].Params, &p)
			if p.URI == e.uri("src/app/Bad.kt") {
				pushed = p.Diagnostics
				return len(pushed) > 0
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no diagnostics pushed: %v", err)
	}
	check := func(how string, got []diag) {
		t.Helper()
		if len(got) != 2 {
			t.Fatalf("%s: want 2 diagnostics, got %+v", how, got)
		}
		if d := got[0]; d.Code != "kast/unresolved-name" || d.Source != "kast" || d.Range.Start.Line != 2 || d.Severity != 1 ||
			d.Message != "unresolved reference: missingFn" {
			t.Errorf("%s: first = %+v", how, d)
		}
		if d := got[1]; d.Code != "kast/wrong-arity" || d.Range.Start.Line != 6 {
			t.Errorf("%s: second = %+v", how, d)
		}
	}
	check("pushed", pushed)
	var pulled struct {
		Kind  string `json:"kind"`
		Items []diag `json:"items"`
	}
	if err := e.client.Call(e.ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": e.uri("src/app/Bad.kt")}}, &pulled); err != nil {
		t.Fatal(err)
	}
	check("pulled", pulled.Items)
}

// Closing a document stops the semantic check of it under way: its
// findings would be thrown away, and a check of a large file holds much
// memory and CPU.
func TestLSPClosingStopsItsDiagnostics(t *testing.T) {
	e := startLSP(t, map[string]string{"a/a.go": "package a\n\nfunc A() int { return 1 }\n"})
	started, stopped := make(chan struct{}, 1), make(chan struct{}, 1)
	diagnosingHook = func(ctx context.Context) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			stopped <- struct{}{}
		case <-time.After(20 * time.Second):
		}
	}
	t.Cleanup(func() { diagnosingHook = nil })
	doc := e.uri("a/b.go")
	if err := e.client.DidOpen(doc, "go", 1, "package a\n\nfunc B() int { return A() }\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("no semantic check started for the open document")
	}
	if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": doc}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the check of a closed document was not stopped")
	}
}

// The toolchain's check of a document opened during the first index waits
// for the index to end (it takes a core, and reference queries wait for
// the index), and closing the document stops it.
func TestLSPToolchainChecksWaitForTheFirstIndex(t *testing.T) {
	gate := make(chan struct{})
	text := "package a\n\nfunc A() int { return 1 }\n"
	e := startLSPWith(t, map[string]string{"go.mod": "module example.com/a\n", "a/a.go": text}, host.Options{IndexGate: gate})
	ran, stopped := make(chan string, 4), make(chan struct{}, 4)
	toolchainHook = func(ctx context.Context, root string) {
		ran <- root
		select {
		case <-ctx.Done():
			stopped <- struct{}{}
		case <-time.After(20 * time.Second):
		}
	}
	t.Cleanup(func() { toolchainHook = nil })
	doc := e.uri("a/a.go")
	if err := e.client.DidOpen(doc, "go", 1, text); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
		t.Fatal("the toolchain checked a document while the first index ran")
	case <-time.After(2 * time.Second):
	}
	close(gate)
	select {
	case <-ran:
	case <-time.After(20 * time.Second):
		t.Fatal("the toolchain never checked the open document after the first index")
	}
	if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": doc}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the toolchain's check of a closed document was not stopped")
	}
}
