package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// demoStyle colours the demo's transcript on a terminal.
type demoStyle struct{ title, method, answer, faint, reset string }

var (
	plainStyle  = demoStyle{}
	colourStyle = demoStyle{title: "\x1b[1m", method: "\x1b[36m", answer: "\x1b[32m", faint: "\x1b[2m", reset: "\x1b[0m"}
)

// printStep shows one step: its title, the request in one line, the answer
// in a few, and the latency.
func printStep(out io.Writer, s demoStep, st demoStyle, root string) {
	if s.Skipped != "" {
		fmt.Fprintf(out, "\n%s%s%s\n  %s%s%s\n", st.title, s.Title, st.reset, st.faint, s.Skipped, st.reset)
		return
	}
	params, _ := json.Marshal(s.Params)
	line := strings.NewReplacer("file://"+root+"/", "", root+"/", "", root, ".").Replace(string(params))
	if len(line) > 110 {
		line = line[:107] + "..."
	}
	fmt.Fprintf(out, "\n%s%s%s  %s%.1f ms%s\n", st.title, s.Title, st.reset, st.faint, s.Millis, st.reset)
	fmt.Fprintf(out, "  %s→ %s%s %s%s%s\n", st.method, s.Method, st.reset, st.faint, line, st.reset)
	for _, a := range s.Answer {
		fmt.Fprintf(out, "  %s%s%s\n", st.answer, a, st.reset)
	}
}

// waitIndexed waits for the first index of the workspace, shown as a step:
// the editor's first workspace symbol answer that finds the sample.
func (d *demoSession) waitIndexed() error {
	start := time.Now()
	for {
		var syms []json.RawMessage
		if _, err := d.client.Call(d.ctx, "workspace/symbol", map[string]any{"query": "greet"}, &syms); err != nil {
			return fmt.Errorf("workspace/symbol: %w", err)
		}
		if len(syms) > 0 {
			break
		}
		select {
		case <-d.ctx.Done():
			return fmt.Errorf("the workspace was not indexed: %w", d.ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	d.call("index the workspace (the editor's first answers)", "workspace/executeCommand", map[string]any{"command": "kast.status"}, func(raw json.RawMessage) []string {
		var status struct {
			Roots []struct {
				Path       string `json:"path"`
				References string `json:"references"`
			} `json:"roots"`
		}
		_ = json.Unmarshal(raw, &status)
		out := []string{fmt.Sprintf("answering %d ms after the files were opened", time.Since(start).Milliseconds())}
		for _, r := range status.Roots {
			out = append(out, "references: "+r.References)
		}
		return out
	})
	return nil
}

// agentStep runs one agent turn when a model provider is configured: the
// model may call kast's code-intelligence tools. Without one it says how to
// configure it.
func (d *demoSession) agentStep() {
	configured := false
	for _, k := range []string{"KAST_PROVIDER", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "MOONSHOT_API_KEY"} {
		configured = configured || os.Getenv(k) != ""
	}
	if !configured {
		d.record(demoStep{Title: "an agent turn (Kward) that uses kast's code tools", Method: "turns/start",
			Skipped: "skipped: no model provider is configured; set OPENAI_API_KEY, ANTHROPIC_API_KEY or MOONSHOT_API_KEY (or KAST_PROVIDER, see the README's Configuration) and run the demo again"})
		return
	}
	var session struct {
		ID string `json:"id"`
	}
	raw := d.call("create an agent session", "sessions/create", map[string]any{"workspaceRoot": d.root, "name": "kast demo"},
		func(raw json.RawMessage) []string { return []string{"session " + string(raw)[:min(len(raw), 60)]} })
	if json.Unmarshal(raw, &session) != nil || session.ID == "" {
		return
	}
	var turn struct {
		ID string `json:"id"`
	}
	raw = d.call("ask the agent where greet is used", "turns/start",
		map[string]any{"sessionId": session.ID, "input": "Where is the function greet used in this workspace? Use your code tools, then answer in two lines."},
		func(json.RawMessage) []string { return nil })
	if json.Unmarshal(raw, &turn) != nil || turn.ID == "" {
		return
	}
	start := time.Now()
	var lines []string
	for time.Since(start) < 2*time.Minute && d.ctx.Err() == nil {
		var res struct {
			Turn struct {
				Status string `json:"status"`
			} `json:"turn"`
			Events []struct {
				Type    string         `json:"type"`
				Payload map[string]any `json:"payload"`
			} `json:"events"`
		}
		if _, err := d.client.Call(d.ctx, "turns/events", map[string]any{"turnId": turn.ID}, &res); err != nil {
			lines = []string{"error: " + err.Error()}
			break
		}
		if s := res.Turn.Status; s == "completed" || s == "failed" || s == "canceled" {
			lines = []string{"turn " + s}
			for _, ev := range res.Events {
				switch ev.Type {
				case "toolCall":
					lines = append(lines, fmt.Sprintf("tool %v", ev.Payload["toolName"]))
				case "answer", "turnFinished":
					if text, ok := ev.Payload["text"].(string); ok && text != "" {
						lines = append(lines, firstLines(text, 3)...)
					}
				}
			}
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.record(demoStep{Title: "the agent's turn", Method: "turns/events", Answer: lines, Millis: float64(time.Since(start).Milliseconds())})
}
