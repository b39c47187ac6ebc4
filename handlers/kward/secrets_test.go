package kward_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// tapClientLogged is tapClient whose server also logs, at debug level, into
// the returned buffer.
func tapClientLogged(t *testing.T) (c *servertest.Client, wire, logs *bytes.Buffer) {
	var mu sync.Mutex
	wire, logs = &bytes.Buffer{}, &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(lockedBuf{&mu, logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	entry := handlers.KwardRPC(handlers.NewProcess(host.New(host.Options{})))
	srv := server.New(entry.Options("test", logger))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	conn := srv.Serve(context.Background(), pipeRWC{sr, sw, func() error { sr.Close(); return sw.Close() }})
	c = servertest.Dial(t, pipeRWC{io.TeeReader(cr, lockedBuf{&mu, wire}), cw, func() error { cw.Close(); <-conn.Done(); return nil }}, servertest.Header)
	t.Cleanup(func() { c.Close() })
	return c, wire, logs
}

// TestKwardSecretsInEveryChannel plants the provider key and the embedding
// key where a model, a tool or a client can put them (assistant text, tool
// arguments and output, a provider error body, a session name, user input,
// request params echoed in errors) and finds neither in results,
// notifications, errors, server logs, telemetry, session files or exports.
func TestKwardSecretsInEveryChannel(t *testing.T) {
	const providerKey, embedKey = "fixture-secret-provider-0001", "fixture-secret-embed-0002"
	keys := providerKey + " " + embedKey
	api := newRecordingServer(t,
		streamToolCall("call_echo", "run_shell_command", `{"command":"echo `+keys+`"}`),
		streamText("Your keys are ", providerKey, " and ", embedKey, "."),
		status(401, []byte(`{"error":{"message":"Incorrect API key provided: `+providerKey+`","code":"invalid_api_key"}}`)),
	)
	dataDir := kwardEnv(t, api.URL)
	t.Setenv("OPENAI_API_KEY", providerKey)
	t.Setenv("KAST_EMBED_API_KEY", embedKey)
	t.Setenv("KAST_LOGGING", "1")
	c, wire, logs := tapClientLogged(t)
	ctx := ctxT(t)
	workspace := t.TempDir()
	s := newSession(t, c, workspace)

	const userWords = "echo my keys; sk-example-not-a-known-key stays as typed"
	evs := runTurn(t, c, s.ID, userWords+" "+providerKey, nil)
	if last := evs[len(evs)-1]; last.Payload["status"] != "completed" || !strings.Contains(wire.String(), "Your keys are") {
		t.Fatalf("echo turn: %s %v", types(evs), last.Payload)
	}
	evs = runTurn(t, c, s.ID, "again", nil)
	if last := evs[len(evs)-1]; last.Payload["status"] != "failed" {
		t.Fatalf("401 turn: %v", last.Payload)
	}
	var status turn
	mustCall(t, c, "turns/status", map[string]any{"turnId": evs[0].TurnID}, &status)
	mustCall(t, c, "sessions/rename", map[string]any{"sessionId": s.ID, "name": "keys " + embedKey}, nil)
	for _, params := range []map[string]any{
		{"persistentId": embedKey},
		{"path": filepath.Join(workspace, providerKey+".jsonl")},
	} {
		if err := c.Call(ctx, "sessions/resume", params, nil); err == nil {
			t.Fatalf("resume %v succeeded", params)
		}
	}
	if err := c.Call(ctx, "workspace/info", map[string]any{"workspaceRoot": "/nowhere/" + embedKey}, nil); err == nil {
		t.Fatal("a missing workspace was accepted")
	}
	var transcript, export json.RawMessage
	mustCall(t, c, "sessions/transcript", map[string]any{"sessionId": s.ID}, &transcript)
	mustCall(t, c, "sessions/export", map[string]any{"sessionId": s.ID}, &export)
	var exported struct{ Path string }
	json.Unmarshal(export, &exported)
	mustCall(t, c, "sessions/close", map[string]any{"sessionId": s.ID}, nil)

	// Every channel was used.
	session, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(session, []byte(userWords)) || !bytes.Contains(session, []byte(`"call_echo"`)) ||
		!bytes.Contains(session, []byte("Your keys are [REDACTED] and [REDACTED].")) {
		t.Fatalf("the session file lost the user's words or the conversation:\n%s", session)
	}
	if !strings.Contains(logs.String(), "handled") || !strings.Contains(wire.String(), "toolResult") {
		t.Fatalf("the server logged nothing or sent no tool result")
	}
	for name, data := range map[string]string{"wire": wire.String(), "server log": logs.String(), "transcript": string(transcript)} {
		for _, key := range []string{providerKey, embedKey} {
			if strings.Contains(data, key) {
				t.Errorf("the %s carries %s", name, key)
			}
		}
	}
	var files []string
	filepath.Walk(filepath.Dir(dataDir), func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files = append(files, path)
		data, _ := os.ReadFile(path)
		for _, key := range []string{providerKey, embedKey} {
			if bytes.Contains(data, []byte(key)) {
				t.Errorf("%s holds %s", path, key)
			}
		}
		return nil
	})
	joined := strings.Join(files, "\n")
	if !strings.Contains(joined, exported.Path) || !strings.Contains(joined, s.Path) || !strings.Contains(joined, filepath.Join("kast", "logs")) {
		t.Fatalf("the scan missed a channel; files:\n%s", joined)
	}
}
