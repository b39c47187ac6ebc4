package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// editorSetup is what an editor's set-up block configures: the agent's
// command line and environment, and the auth method the editor picks.
type editorSetup struct {
	Command    string            `json:"command"`
	Args       []string          `json:"args"`
	Env        map[string]string `json:"env"`
	AuthMethod string            `json:"authMethod,omitempty"`
}

// TestEditorSetups keeps the README's editor set-ups (the blocks after
// <!-- editor-setup:NAME --> markers) working: each block is parsed (JSON
// for Zed and JetBrains; the Lua for CodeCompanion is loaded in headless
// Neovim, codecompanion.adapters stood in for, see
// testdata/acp/nvim/codecompanion-setup.lua), then exactly the command,
// arguments and environment it configures are started, with this tree's
// kast first on PATH as `kast`, and driven by the official ACP SDK client
// (testdata/acp/node/editor-setup.mjs) through initialize, authenticate
// when the block names a method, session/new and a prompt answered by a
// loopback Anthropic Messages model. The editors themselves (Zed, the
// JetBrains AI Assistant, CodeCompanion) cannot be installed here.
func TestEditorSetups(t *testing.T) {
	node, dir := acpNodeSDK(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const answer = "Hello from kast."
	model := anthropicModel(t, answer)
	bin := t.TempDir()
	if err := os.Symlink(kastBin, filepath.Join(bin, "kast")); err != nil {
		t.Fatal(err)
	}

	for _, editor := range []string{"zed", "codecompanion", "jetbrains"} {
		t.Run(editor, func(t *testing.T) {
			lang, block := editorBlock(t, string(readme), editor)
			var setup editorSetup
			switch editor {
			case "zed", "jetbrains":
				if lang != "json" {
					t.Fatalf("the %s block is %q, want json", editor, lang)
				}
				setup = agentServer(t, block, editor == "zed")
			case "codecompanion":
				if lang != "lua" {
					t.Fatalf("the %s block is %q, want lua", editor, lang)
				}
				setup = codeCompanionAdapter(t, block)
			}
			tmp := t.TempDir()
			ws := filepath.Join(tmp, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
			if resolved, err := lookPathIn(setup.Command, path); err != nil || resolved != filepath.Join(bin, "kast") && resolved != kastBin {
				t.Fatalf("the %s block's command %q resolves to %q (%v), not this tree's kast", editor, setup.Command, resolved, err)
			}
			raw, err := json.Marshal(setup)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "editor-setup.mjs")
			cmd.Dir = dir
			cmd.WaitDelay = 5 * time.Second
			cmd.Env = append(os.Environ(), "PATH="+path,
				"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
				"KAST_PROVIDER=", "KAST_MODEL=", "OPENAI_API_KEY=", "OPENROUTER_API_KEY=", "MOONSHOT_API_KEY=",
				"ANTHROPIC_API_KEY=sk-ant-test-123456", "KAST_BASE_URL="+model,
				"EDITOR_SETUP="+string(raw), "ACP_WORKSPACE="+ws, "EXPECT_TEXT="+answer)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			t.Logf("%s", out)
		})
	}
}

var editorBlockRE = regexp.MustCompile("(?s)<!-- editor-setup:([a-z]+) -->\n```([a-z]+)\n(.*?)\n```")

// editorBlock is the README's fenced block after the editor's marker.
func editorBlock(t *testing.T, readme, editor string) (lang, text string) {
	t.Helper()
	for _, m := range editorBlockRE.FindAllStringSubmatch(readme, -1) {
		if m[1] == editor {
			return m[2], m[3]
		}
	}
	t.Fatalf("README.md has no <!-- editor-setup:%s --> block", editor)
	return "", ""
}

// agentServer reads an agent_servers settings block (Zed's settings.json,
// JetBrains' acp.json): its kast entry, which Zed wants of type custom.
func agentServer(t *testing.T, block string, custom bool) editorSetup {
	t.Helper()
	var settings struct {
		AgentServers map[string]struct {
			Type string `json:"type"`
			editorSetup
		} `json:"agent_servers"`
	}
	dec := json.NewDecoder(strings.NewReader(block))
	if err := dec.Decode(&settings); err != nil {
		t.Fatalf("the block is not JSON: %v\n%s", err, block)
	}
	entry, ok := settings.AgentServers["kast"]
	if !ok {
		t.Fatalf("the block has no agent_servers.kast entry:\n%s", block)
	}
	if custom && entry.Type != "custom" {
		t.Errorf("agent_servers.kast.type = %q, want custom", entry.Type)
	}
	return entry.editorSetup
}

// codeCompanionAdapter loads the CodeCompanion block in headless Neovim
// and returns the ACP adapter its chat uses.
func codeCompanionAdapter(t *testing.T, block string) editorSetup {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("nvim is missing: %v", err)
		}
		t.Skipf("nvim is missing (Debian's neovim loads the block): %v", err)
	}
	tmp := t.TempDir()
	snippet, out := filepath.Join(tmp, "block.lua"), filepath.Join(tmp, "adapter.json")
	if err := os.WriteFile(snippet, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "testdata", "acp", "nvim", "codecompanion-setup.lua"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "SNIPPET_FILE="+snippet, "OUT_FILE="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, msg)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no adapter: %v", err)
	}
	var got struct {
		editorSetup
		Base  string `json:"base"`
		Name  string `json:"name"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("the adapter %s: %v", raw, err)
	}
	if got.Error != "" {
		t.Fatalf("loading the block: %s", got.Error)
	}
	if got.Name != "kast" || got.Base == "" {
		t.Errorf("adapter %s extends %q, want the name kast and a built-in ACP adapter", got.Name, got.Base)
	}
	t.Logf("CodeCompanion adapter %s (extends %s): %s %v, auth_method %q", got.Name, got.Base, got.Command, got.Args, got.AuthMethod)
	return got.editorSetup
}

// lookPathIn finds a command as a process started with PATH=path would.
func lookPathIn(command, path string) (string, error) {
	if strings.Contains(command, "/") {
		_, err := os.Stat(command)
		return command, err
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// anthropicModel serves Anthropic's Messages API on loopback: every
// request streams text as one text block.
func anthropicModel(t *testing.T, text string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-test-123456" {
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"unexpected request"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		quoted, _ := json.Marshal(text)
		for _, ev := range []string{
			`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(quoted) + `}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`,
			`{"type":"message_stop"}`,
		} {
			var typ struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal([]byte(ev), &typ)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ.Type, ev)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
