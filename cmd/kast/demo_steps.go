package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// demoStep is one request of the demo and what it showed.
type demoStep struct {
	Title   string          `json:"step"`
	Method  string          `json:"method"`
	Params  any             `json:"params"`
	Answer  []string        `json:"answer"`
	Millis  float64         `json:"ms"`
	Result  json.RawMessage `json:"result,omitempty"`
	Skipped string          `json:"skipped,omitempty"`
}

// demoSession runs the steps over one editor connection.
type demoSession struct {
	ctx    context.Context
	client jsonrpc2.Conn
	root   string
	steps  []demoStep
	show   func(demoStep)
}

// call sends one request and records it as a step; summarize turns its
// result into the few lines shown.
func (d *demoSession) call(title, method string, params any, summarize func(json.RawMessage) []string) json.RawMessage {
	var raw json.RawMessage
	start := time.Now()
	_, err := d.client.Call(d.ctx, method, params, &raw)
	step := demoStep{Title: title, Method: method, Params: params, Millis: float64(time.Since(start).Microseconds()) / 1000}
	if len(raw) > 0 {
		step.Result = raw
	}
	if err != nil {
		step.Answer = []string{"error: " + err.Error()}
	} else {
		step.Answer = summarize(raw)
	}
	d.record(step)
	return raw
}

func (d *demoSession) record(s demoStep) {
	d.steps = append(d.steps, s)
	if d.show != nil {
		d.show(s)
	}
}

// at is the LSP position of the n-th byte of needle's first occurrence in
// the file (the sample is ASCII, so bytes are UTF-16 units).
func (d *demoSession) at(rel, needle string, n int) map[string]any {
	text, _ := os.ReadFile(filepath.Join(d.root, rel))
	i := strings.Index(string(text), needle) + n
	line := strings.Count(string(text[:i]), "\n")
	col := i - (strings.LastIndex(string(text[:i]), "\n") + 1)
	return map[string]any{"textDocument": map[string]any{"uri": d.uri(rel)}, "position": map[string]int{"line": line, "character": col}}
}

// offset is the byte offset of needle's first occurrence in the file.
func (d *demoSession) offset(rel, needle string) int {
	text, _ := os.ReadFile(filepath.Join(d.root, rel))
	return strings.Index(string(text), needle)
}

func (d *demoSession) uri(rel string) uri.URI { return uri.File(filepath.Join(d.root, rel)) }

// where renders an LSP location relative to the root, 1-based.
func (d *demoSession) where(u string, line, char int) string {
	p := strings.TrimPrefix(u, "file://")
	if rel, err := filepath.Rel(d.root, p); err == nil {
		p = rel
	}
	return fmt.Sprintf("%s:%d:%d", p, line+1, char+1)
}

type lspLocation struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
}

func (d *demoSession) locations(raw json.RawMessage) []string {
	var locs []lspLocation
	if json.Unmarshal(raw, &locs) != nil {
		var one lspLocation
		if json.Unmarshal(raw, &one) == nil && one.URI != "" {
			locs = []lspLocation{one}
		}
	}
	out := []string{}
	for _, l := range locs {
		out = append(out, d.where(l.URI, l.Range.Start.Line, l.Range.Start.Character))
	}
	return out
}

// kotlin is the Kotlin sample's folder.
const kotlin = "src/main/kotlin/sample/"

// languageSteps are the language features on the embedded sample.
func (d *demoSession) languageSteps() {
	d.call("go to definition of greet, from its call in Use.kt", "textDocument/definition", d.at(kotlin+"Use.kt", "greet(", 0),
		func(raw json.RawMessage) []string { return prefixed("→ ", d.locations(raw)) })
	refs := d.at(kotlin+"Greeter.kt", "greet(", 0)
	refs["context"] = map[string]bool{"includeDeclaration": false}
	d.call("find the references of greet", "textDocument/references", refs, func(raw json.RawMessage) []string {
		locs := d.locations(raw)
		return append([]string{fmt.Sprintf("%d references", len(locs))}, prefixed("  ", locs)...)
	})
	d.call("hover on greet", "textDocument/hover", d.at(kotlin+"Use.kt", "greet(", 0), func(raw json.RawMessage) []string {
		var h struct {
			Contents struct{ Value string } `json:"contents"`
		}
		_ = json.Unmarshal(raw, &h)
		return firstLines(h.Contents.Value, 4)
	})
	d.call("complete after `shop.` in Shop.kt", "textDocument/completion", d.at(kotlin+"Shop.kt", "shop.describe", len("shop.")), func(raw json.RawMessage) []string {
		var list struct {
			Items []struct{ Label, Detail string } `json:"items"`
		}
		if json.Unmarshal(raw, &list) != nil || list.Items == nil {
			_ = json.Unmarshal(raw, &list.Items)
		}
		labels := []string{}
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		return []string{fmt.Sprintf("%d items: %s", len(labels), strings.Join(firstN(labels, 8), ", "))}
	})
	rename := d.at(kotlin+"Greeter.kt", "greet(", 0)
	rename["newName"] = "welcome"
	d.call("rename greet to welcome (a preview: the edits are not applied)", "textDocument/rename", rename, func(raw json.RawMessage) []string {
		var edit struct {
			Changes map[string][]json.RawMessage `json:"changes"`
		}
		_ = json.Unmarshal(raw, &edit)
		n := 0
		for _, edits := range edit.Changes {
			n += len(edits)
		}
		return []string{fmt.Sprintf("%d edits in %d files", n, len(edit.Changes))}
	})
	items := d.call("prepare the call hierarchy of greet", "textDocument/prepareCallHierarchy", d.at(kotlin+"Greeter.kt", "greet(", 0),
		func(raw json.RawMessage) []string { return names(raw) })
	var calls []json.RawMessage
	if json.Unmarshal(items, &calls) == nil && len(calls) > 0 {
		d.call("incoming calls of greet", "callHierarchy/incomingCalls", map[string]any{"item": calls[0]}, func(raw json.RawMessage) []string {
			var incoming []struct {
				From struct{ Name string } `json:"from"`
			}
			_ = json.Unmarshal(raw, &incoming)
			out := []string{}
			for _, c := range incoming {
				out = append(out, "← "+c.From.Name)
			}
			return out
		})
	}
	types := d.call("prepare the type hierarchy of FriendlyGreeter", "textDocument/prepareTypeHierarchy", d.at(kotlin+"Types.kt", "FriendlyGreeter", 0),
		func(raw json.RawMessage) []string { return names(raw) })
	var typeItems []json.RawMessage
	if json.Unmarshal(types, &typeItems) == nil && len(typeItems) > 0 {
		d.call("its supertypes", "typeHierarchy/supertypes", map[string]any{"item": typeItems[0]}, func(raw json.RawMessage) []string { return prefixed("↑ ", names(raw)) })
		d.call("its subtypes", "typeHierarchy/subtypes", map[string]any{"item": typeItems[0]}, func(raw json.RawMessage) []string { return prefixed("↓ ", names(raw)) })
	}
	d.call("diagnostics of the broken file", "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": d.uri(kotlin + "Broken.kt")}},
		func(raw json.RawMessage) []string {
			var report struct {
				Items []struct {
					Message string
					Range   struct {
						Start struct{ Line, Character int } `json:"start"`
					} `json:"range"`
				} `json:"items"`
			}
			_ = json.Unmarshal(raw, &report)
			out := []string{}
			for _, it := range report.Items {
				out = append(out, fmt.Sprintf("%s: %s", d.where(string(d.uri(kotlin+"Broken.kt")), it.Range.Start.Line, it.Range.Start.Character), it.Message))
			}
			return out
		})
	d.call("workspace symbols matching greet, in every language", "workspace/symbol", map[string]any{"query": "greet"}, func(raw json.RawMessage) []string {
		var syms []struct {
			Name     string      `json:"name"`
			Location lspLocation `json:"location"`
		}
		_ = json.Unmarshal(raw, &syms)
		out := []string{}
		for _, s := range syms {
			out = append(out, fmt.Sprintf("%-10s %s", s.Name, d.where(s.Location.URI, s.Location.Range.Start.Line, s.Location.Range.Start.Character)))
		}
		return firstN(out, 8)
	})
}

// familySteps are the other protocols on the same connection: ck search
// and the Kast analysis API.
func (d *demoSession) familySteps() {
	d.call("ck regex search: function declarations", "ck/regex_search", map[string]any{"pattern": `fun \w+\(`, "path": d.root}, d.searchHits)
	d.call("ck hybrid search: \"greet someone by name\"", "ck/hybrid_search", map[string]any{"query": "greet someone by name", "path": d.root, "top_k": 3}, d.searchHits)
	d.call("Kast raw/resolve of the call in Use.kt", "raw/resolve",
		map[string]any{"position": map[string]any{"filePath": filepath.Join(d.root, kotlin+"Use.kt"), "offset": d.offset(kotlin+"Use.kt", "greet(")}},
		func(raw json.RawMessage) []string {
			var r struct {
				Symbol struct{ FqName, Kind string } `json:"symbol"`
			}
			_ = json.Unmarshal(raw, &r)
			return []string{r.Symbol.Kind + " " + r.Symbol.FqName}
		})
	d.call("Kast database/metrics: the most called declarations", "database/metrics", map[string]any{"metric": "fanIn", "limit": 3}, func(raw json.RawMessage) []string {
		var r struct {
			Results []struct {
				TargetFqName    string         `json:"targetFqName"`
				OccurrenceCount int            `json:"occurrenceCount"`
				ByEdgeKind      map[string]int `json:"byEdgeKind"`
			} `json:"results"`
		}
		_ = json.Unmarshal(raw, &r)
		out := []string{}
		for _, row := range r.Results {
			out = append(out, fmt.Sprintf("%s: %d uses %v", row.TargetFqName, row.OccurrenceCount, row.ByEdgeKind))
		}
		return out
	})
}

func (d *demoSession) searchHits(raw json.RawMessage) []string {
	var r struct {
		Results struct {
			Matches []struct {
				File struct {
					Path string `json:"path"`
				} `json:"file"`
				Match struct {
					Content    string `json:"content"`
					LineNumber int    `json:"line_number"`
				} `json:"match"`
				Score *float64 `json:"score"`
			} `json:"matches"`
		} `json:"results"`
	}
	_ = json.Unmarshal(raw, &r)
	matches := r.Results.Matches
	out := []string{fmt.Sprintf("%d matches", len(matches))}
	for _, m := range firstN(matches, 3) {
		rel, _ := filepath.Rel(d.root, m.File.Path)
		out = append(out, fmt.Sprintf("  %s:%d  %s", rel, m.Match.LineNumber, strings.TrimSpace(firstLine(m.Match.Content))))
	}
	return out
}

func names(raw json.RawMessage) []string {
	var items []struct{ Name string }
	_ = json.Unmarshal(raw, &items)
	out := []string{}
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func firstLines(s string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "```") {
			out = append(out, l)
		}
	}
	return firstN(out, n)
}
