package kward_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestKwardHandshakeIdentity: on the Kward profile, initialize says what
// Kward's clients check (serverName kward, experimental true) and carries
// the legacy flat capability fields older clients read; serverInfo names
// kast.
func TestKwardHandshakeIdentity(t *testing.T) {
	kwardEnv(t, "")
	c := kwardClient(t)
	var res struct {
		ServerName   string         `json:"serverName"`
		Experimental bool           `json:"experimental"`
		ServerInfo   map[string]any `json:"serverInfo"`
		Capabilities map[string]any `json:"capabilities"`
	}
	mustCall(t, c, "initialize", map[string]any{}, &res)
	if res.ServerName != "kward" || !res.Experimental || res.ServerInfo["name"] != "kast" {
		t.Fatalf("identity %q experimental %v serverInfo %v", res.ServerName, res.Experimental, res.ServerInfo)
	}
	for _, key := range []string{"asyncTurns", "turnCancellation", "turnEventReplay", "uiQuestions", "authLogin", "configUpdate",
		"session", "cancellation", "eventReplay", "uiQuestion", "prompts", "skills", "tools", "config"} {
		if res.Capabilities[key] == nil {
			t.Errorf("legacy capability %s is missing", key)
		}
	}
	if res.Capabilities["eventReplay"].(map[string]any)["limit"].(float64) != 1000 ||
		res.Capabilities["uiQuestion"].(map[string]any)["method"] != "ui/answerQuestion" {
		t.Fatalf("legacy fields disagree with the detailed ones: %v %v", res.Capabilities["eventReplay"], res.Capabilities["uiQuestion"])
	}
}

// TestKwardEmptyListsAreArrays: an empty listing and an empty transcript
// are [], never null.
func TestKwardEmptyListsAreArrays(t *testing.T) {
	kwardEnv(t, "")
	c := kwardClient(t)
	var list, transcript json.RawMessage
	mustCall(t, c, "sessions/list", map[string]any{"workspaceRoot": t.TempDir()}, &list)
	if !strings.Contains(string(list), `"sessions":[]`) {
		t.Fatalf("sessions/list: %s", list)
	}
	s := newSession(t, c, t.TempDir())
	mustCall(t, c, "sessions/transcript", map[string]any{"sessionId": s.ID}, &transcript)
	if !strings.Contains(string(transcript), `"messages":[]`) {
		t.Fatalf("sessions/transcript: %s", transcript)
	}
}

// TestKwardShutdownFinishesStreamingTurn: shutdown cancels a streaming
// turn, and its turnFinished (canceled) arrives before the reply, on
// `kast kward rpc` (Kward's shutdown) and on the LSP connection (LSP's).
func TestKwardShutdownFinishesStreamingTurn(t *testing.T) {
	for _, entry := range []string{"kward", "lsp"} {
		t.Run(entry, func(t *testing.T) {
			api := chatServer(t, stall)
			kwardEnv(t, api.URL)
			c := kwardClient(t)
			ctx := ctxT(t)
			if entry == "lsp" {
				c = lspClient(t)
				if err := c.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
					t.Fatal(err)
				}
			}
			s := newSession(t, c, t.TempDir())
			var tr turn
			mustCall(t, c, "turns/start", map[string]any{"sessionId": s.ID, "input": "think"}, &tr)
			for {
				m, err := c.WaitNotification(ctx, "turn/event")
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(m.Params), `"assistantDelta"`) {
					break
				}
			}
			if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
				t.Fatalf("shutdown: %v", err)
			}
			var last event
			for _, m := range c.Notifications("turn/event") {
				var ev event
				json.Unmarshal(m.Params, &ev)
				if ev.TurnID == tr.ID {
					last = ev
				}
			}
			if last.Type != "turnFinished" || last.Payload["status"] != "canceled" {
				t.Fatalf("the last event before the shutdown reply: %+v", last)
			}
		})
	}
}

// TestKwardStateErrorCodes: a well-formed request the state refuses is
// -32603 with a data code, as Kward answers it; -32600 is for messages that
// are not JSON-RPC requests.
func TestKwardStateErrorCodes(t *testing.T) {
	kwardEnv(t, chatServer(t, streamText("unused")).URL)
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	check := func(method, want string) {
		t.Helper()
		code, data := rpcCode(t, c.Call(ctx, method, map[string]any{"sessionId": s.ID}, nil))
		if code != -32603 || data != want {
			t.Errorf("%s: got %d %s, want -32603 %s", method, code, data, want)
		}
	}
	check("sessions/compact", "NOTHING_TO_COMPACT")
	check("logging/stats", "LOGGING_DISABLED")
	t.Setenv("KAST_PROVIDER", "")
	t.Setenv("OPENAI_API_KEY", "")
	check("models/current", "PROVIDER_NOT_CONFIGURED")
}

// TestKwardSettingsReportWhatIsUsed: models/set refuses a model that
// KAST_MODEL (or a provider KAST_PROVIDER) overrides instead of answering
// success, and a reasoning effort is refused for, and never sent to, a model
// known to take none.
func TestKwardSettingsReportWhatIsUsed(t *testing.T) {
	api := newRecordingServer(t, streamText("ok"))
	kwardEnv(t, api.URL) // KAST_PROVIDER=openai, KAST_MODEL=test-model
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	for name, call := range map[string]func() error{
		"model": func() error { return c.Call(ctx, "models/set", map[string]any{"model": "gpt-5"}, nil) },
		"provider": func() error {
			return c.Call(ctx, "models/set", map[string]any{"model": "test-model", "provider": "anthropic"}, nil)
		},
		"default model": func() error {
			return c.Call(ctx, "runtime/updateSetting", map[string]any{"sessionId": s.ID, "settingId": "defaultModel", "value": "openai/gpt-5"}, nil)
		},
	} {
		err := call()
		if code, data := rpcCode(t, err); code != -32603 || data != "SETTING_OVERRIDDEN" || !strings.Contains(err.Error(), "KAST_") {
			t.Errorf("%s overridden by the environment: %d %s %v", name, code, data, err)
		}
	}
	var cur map[string]any
	mustCall(t, c, "models/current", nil, &cur)
	if cur["id"] != "test-model" {
		t.Fatalf("the model in force: %v", cur)
	}
	mustCall(t, c, "models/set", map[string]any{"model": "test-model"}, &cur) // what is in force anyway

	t.Setenv("KAST_MODEL", "")
	mustCall(t, c, "models/set", map[string]any{"model": "gpt-5"}, &cur)
	mustCall(t, c, "reasoning/set", map[string]any{"effort": "high"}, &cur)
	runTurn(t, c, s.ID, "think", nil)
	if body := api.body(-1); !strings.Contains(body, `"reasoning_effort":"high"`) {
		t.Fatalf("a reasoning model's request lacks the effort: %s", body)
	}
	mustCall(t, c, "models/set", map[string]any{"model": "gpt-4.1"}, &cur)
	if msg, _ := cur["message"].(string); cur["id"] != "gpt-4.1" || cur["reasoningEffort"] != nil || !strings.Contains(msg, "not sent") {
		t.Fatalf("switching to a model without reasoning: %v", cur)
	}
	runTurn(t, c, s.ID, "plain", nil)
	if body := api.body(-1); strings.Contains(body, "reasoning") {
		t.Fatalf("a model without reasoning got an effort: %s", body)
	}
	code, data := rpcCode(t, c.Call(ctx, "reasoning/set", map[string]any{"effort": "low"}, nil))
	if code != -32602 || data != "REASONING_UNSUPPORTED" {
		t.Fatalf("reasoning/set for a model without reasoning: %d %s", code, data)
	}
	mustCall(t, c, "reasoning/set", map[string]any{"effort": "off"}, &cur)
}
