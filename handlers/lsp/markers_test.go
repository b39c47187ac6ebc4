package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// Marker checkers for testdata/lsp, one per LSP feature. A location
// argument is a bound loc name or text on the marker's line; locations
// compare as "file:line:character" in the negotiated encoding.

type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

type wireLoc struct {
	URI   string    `json:"uri"`
	Range wireRange `json:"range"`
}

// newTestServer returns a server whose language-server sessions have all
// closed (background work stopped, indexes released) before the test's
// temporary folders are removed.
func newTestServer(t testing.TB) *server.Server { return newTestServerWith(t, host.Options{}) }

func newTestServerWith(t testing.TB, opts host.Options) *server.Server {
	h := host.New(opts)
	l := New(h)
	t.Cleanup(l.WaitSessions)
	reg := server.NewRegistry()
	l.Register(reg)
	return server.New(server.Options{Registry: reg, Profile: l.Profile()})
}

func docPos(env *servertest.Env, loc servertest.Location) map[string]any {
	return map[string]any{"textDocument": map[string]string{"uri": env.URI(loc.File)}, "position": loc.Position(env.Encoding)}
}

// rel names a wire location as file:line:character relative to the root.
func rel(env *servertest.Env, u string, p wirePos) string {
	path := uri.URI(u).FsPath()
	r, err := filepath.Rel(env.Root, path)
	if err != nil {
		r = path
	}
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(r), p.Line, p.Character)
}

func want(env *servertest.Env, loc servertest.Location) string {
	p := loc.Position(env.Encoding)
	return fmt.Sprintf("%s:%d:%d", loc.File, p["line"], p["character"])
}

func call(env *servertest.Env, m servertest.Marker, method string, params, result any) bool {
	env.T.Helper()
	if err := env.Client.Call(env.Ctx, method, params, result); err != nil {
		env.T.Errorf("%v: %s: %v", m, method, err)
		return false
	}
	return true
}

// sameLocs compares locations as sets.
func sameLocs(env *servertest.Env, m servertest.Marker, got []string, wantArgs []servertest.Arg) {
	env.T.Helper()
	var w []string
	for _, a := range wantArgs {
		w = append(w, want(env, env.Loc(m, a)))
	}
	slices.Sort(got)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		env.T.Errorf("%v: got %v, want %v", m, got, w)
	}
}

func locsChecker(method string, extra map[string]any) servertest.Checker {
	return func(env *servertest.Env, m servertest.Marker) {
		params := docPos(env, env.Loc(m, m.Args[0]))
		for k, v := range extra {
			params[k] = v
		}
		var locs []wireLoc
		if !call(env, m, method, params, &locs) {
			return
		}
		got := []string{}
		for _, l := range locs {
			got = append(got, rel(env, l.URI, l.Range.Start))
		}
		sameLocs(env, m, got, m.Args[1:])
	}
}

type wireItem struct {
	Name           string          `json:"name"`
	URI            string          `json:"uri"`
	Range          wireRange       `json:"range"`
	SelectionRange wireRange       `json:"selectionRange"`
	Kind           int             `json:"kind"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// hierarchyChecker prepares an item at the first argument and compares the
// selection ranges of the items one step away with the rest.
func hierarchyChecker(prepare, method, field string) servertest.Checker {
	return func(env *servertest.Env, m servertest.Marker) {
		var items []json.RawMessage
		if !call(env, m, prepare, docPos(env, env.Loc(m, m.Args[0])), &items) {
			return
		}
		if len(items) != 1 {
			env.T.Errorf("%v: %s returned %d items, want 1", m, prepare, len(items))
			return
		}
		var res []map[string]json.RawMessage
		if !call(env, m, method, map[string]any{"item": items[0]}, &res) {
			return
		}
		got := []string{}
		for _, r := range res {
			raw := json.RawMessage(items[0])
			if field != "" {
				raw = r[field]
			} else {
				b, _ := json.Marshal(r)
				raw = b
			}
			var it wireItem
			_ = json.Unmarshal(raw, &it)
			got = append(got, rel(env, it.URI, it.SelectionRange.Start))
		}
		sameLocs(env, m, got, m.Args[1:])
	}
}

var lspCheckers = map[string]servertest.Checker{
	// def(src, dst...): definition of the name at src.
	"def": locsChecker("textDocument/definition", nil),
	// deffirst(src, dst): the first definition of the name at src, where
	// a client jumps (the overload a TypeScript call binds).
	"deffirst": func(env *servertest.Env, m servertest.Marker) {
		var locs []wireLoc
		if !call(env, m, "textDocument/definition", docPos(env, env.Loc(m, m.Args[0])), &locs) {
			return
		}
		got := []string{}
		for _, l := range locs {
			got = append(got, rel(env, l.URI, l.Range.Start))
		}
		if w := want(env, env.Loc(m, m.Args[1])); len(got) == 0 || got[0] != w {
			env.T.Errorf("%v: got %v, want %s first", m, got, w)
		}
	},
	"decl":     locsChecker("textDocument/declaration", nil),
	"typedef":  locsChecker("textDocument/typeDefinition", nil),
	"impl":     locsChecker("textDocument/implementation", nil),
	"refs":     locsChecker("textDocument/references", map[string]any{"context": map[string]bool{"includeDeclaration": false}}),
	"refsdecl": locsChecker("textDocument/references", map[string]any{"context": map[string]bool{"includeDeclaration": true}}),
	// highlight(src, locs...): the highlights in src's file.
	"highlight": func(env *servertest.Env, m servertest.Marker) {
		src := env.Loc(m, m.Args[0])
		var hs []struct {
			Range wireRange `json:"range"`
		}
		if !call(env, m, "textDocument/documentHighlight", docPos(env, src), &hs) {
			return
		}
		got := []string{}
		for _, h := range hs {
			got = append(got, rel(env, env.URI(src.File), h.Range.Start))
		}
		sameLocs(env, m, got, m.Args[1:])
	},
	// hover(src, "text"): the hover's markdown contains text.
	"hover": func(env *servertest.Env, m servertest.Marker) {
		var h *struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		if !call(env, m, "textDocument/hover", docPos(env, env.Loc(m, m.Args[0])), &h) {
			return
		}
		if h == nil || !strings.Contains(h.Contents.Value, m.Args[1].Str) {
			env.T.Errorf("%v: hover = %+v, want it to contain %q", m, h, m.Args[1].Str)
		}
	},
	// sig(src, "label", active): signature help inside a call.
	"sig": func(env *servertest.Env, m servertest.Marker) {
		var h *struct {
			Signatures []struct {
				Label string `json:"label"`
			} `json:"signatures"`
			ActiveParameter int `json:"activeParameter"`
		}
		if !call(env, m, "textDocument/signatureHelp", docPos(env, env.Loc(m, m.Args[0])), &h) {
			return
		}
		if h == nil || len(h.Signatures) != 1 || h.Signatures[0].Label != m.Args[1].Str || h.ActiveParameter != m.Args[2].Int {
			env.T.Errorf("%v: signature help = %+v, want %q with parameter %d", m, h, m.Args[1].Str, m.Args[2].Int)
		}
	},
	// complete(src, "label"...): completion at src offers the labels, in
	// that order; import="text" checks the first label's auto-import edit.
	"complete": func(env *servertest.Env, m servertest.Marker) {
		var list struct {
			Items []struct {
				Label               string `json:"label"`
				AdditionalTextEdits []struct {
					NewText string `json:"newText"`
				} `json:"additionalTextEdits"`
				Data json.RawMessage `json:"data"`
			} `json:"items"`
		}
		if !call(env, m, "textDocument/completion", docPos(env, env.Loc(m, m.Args[0])), &list) {
			return
		}
		var labels []string
		for _, it := range list.Items {
			labels = append(labels, it.Label)
		}
		last := -1
		for _, a := range m.Args[1:] {
			if a.Key == "import" {
				i := slices.Index(labels, m.Args[1].Str)
				if i < 0 || len(list.Items[i].AdditionalTextEdits) != 1 || strings.TrimSpace(list.Items[i].AdditionalTextEdits[0].NewText) != a.Str {
					env.T.Errorf("%v: want %q to import %q; items %+v", m, m.Args[1].Str, a.Str, list.Items)
				}
				continue
			}
			i := slices.Index(labels, a.Str)
			if i < 0 || i < last {
				env.T.Errorf("%v: want %q after the previous labels; got %v", m, a.Str, labels)
			}
			last = i
		}
		// completionItem/resolve adds documentation to the first item with data.
		for _, it := range list.Items {
			if len(it.Data) > 0 {
				var res struct {
					Documentation struct {
						Value string `json:"value"`
					} `json:"documentation"`
				}
				item, _ := json.Marshal(it)
				if call(env, m, "completionItem/resolve", json.RawMessage(item), &res) && res.Documentation.Value == "" {
					env.T.Errorf("%v: completionItem/resolve gave no documentation for %s", m, it.Label)
				}
				break
			}
		}
	},
	// completeLacks(src, "label"...): completion at src offers none of the labels.
	"completeLacks": func(env *servertest.Env, m servertest.Marker) {
		var list struct {
			Items []struct {
				Label string `json:"label"`
			} `json:"items"`
		}
		if !call(env, m, "textDocument/completion", docPos(env, env.Loc(m, m.Args[0])), &list) {
			return
		}
		for _, it := range list.Items {
			for _, a := range m.Args[1:] {
				if it.Label == a.Str {
					env.T.Errorf("%v: %q offered, want it left out", m, a.Str)
				}
			}
		}
	},
	// rename(src, "new", golden): the edits, one per line.
	"rename": func(env *servertest.Env, m servertest.Marker) {
		src := env.Loc(m, m.Args[0])
		var prep *struct {
			Placeholder string `json:"placeholder"`
		}
		if !call(env, m, "textDocument/prepareRename", docPos(env, src), &prep) {
			return
		}
		params := docPos(env, src)
		params["newName"] = m.Args[1].Str
		var edit struct {
			Changes map[string][]struct {
				Range   wireRange `json:"range"`
				NewText string    `json:"newText"`
			} `json:"changes"`
		}
		if !call(env, m, "textDocument/rename", params, &edit) {
			return
		}
		var lines []string
		for u, edits := range edit.Changes {
			for _, e := range edits {
				lines = append(lines, fmt.Sprintf("%s-%d:%d %s", rel(env, u, e.Range.Start), e.Range.End.Line, e.Range.End.Character, e.NewText))
			}
		}
		slices.Sort(lines)
		env.CheckGolden(m, m.Args[2].Str, []byte(strings.Join(lines, "\n")))
	},
	// renamefails(src, "new", "message"): rename is refused with a message.
	"renamefails": func(env *servertest.Env, m servertest.Marker) {
		params := docPos(env, env.Loc(m, m.Args[0]))
		params["newName"] = m.Args[1].Str
		err := env.Client.Call(env.Ctx, "textDocument/rename", params, nil)
		if err == nil || !strings.Contains(err.Error(), m.Args[2].Str) {
			env.T.Errorf("%v: rename error = %v, want one containing %q", m, err, m.Args[2].Str)
		}
	},
	"incoming":   hierarchyChecker("textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "from"),
	"outgoing":   hierarchyChecker("textDocument/prepareCallHierarchy", "callHierarchy/outgoingCalls", "to"),
	"supertypes": hierarchyChecker("textDocument/prepareTypeHierarchy", "typeHierarchy/supertypes", ""),
	"subtypes":   hierarchyChecker("textDocument/prepareTypeHierarchy", "typeHierarchy/subtypes", ""),
	// symbols("file", golden): the document symbol tree.
	"symbols": func(env *servertest.Env, m servertest.Marker) {
		var syms []wireSymbol
		if !call(env, m, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": env.URI(m.Args[0].Str)}}, &syms) {
			return
		}
		var b strings.Builder
		printSymbols(&b, syms, 0)
		env.CheckGolden(m, m.Args[1].Str, []byte(b.String()))
	},
	// diag("file", some|none): pulled and pushed syntax diagnostics.
	"diag": func(env *servertest.Env, m servertest.Marker) {
		var report struct {
			Items []struct {
				Message string `json:"message"`
			} `json:"items"`
		}
		doc := map[string]any{"textDocument": map[string]string{"uri": env.URI(m.Args[0].Str)}}
		if !call(env, m, "textDocument/diagnostic", doc, &report) {
			return
		}
		if (len(report.Items) > 0) != (m.Args[1].Str == "some") {
			env.T.Errorf("%v: pulled diagnostics %+v, want %s", m, report.Items, m.Args[1].Str)
		}
		pushed := pushedDiagnostics(env, env.URI(m.Args[0].Str))
		if (pushed > 0) != (m.Args[1].Str == "some") {
			env.T.Errorf("%v: %d pushed diagnostics, want %s", m, pushed, m.Args[1].Str)
		}
	},
	// wsymbol("query", loc): the best workspace symbol for the query.
	"wsymbol": func(env *servertest.Env, m servertest.Marker) {
		var syms []struct {
			Location wireLoc `json:"location"`
		}
		if !call(env, m, "workspace/symbol", map[string]string{"query": m.Args[0].Str}, &syms) {
			return
		}
		if len(syms) == 0 {
			env.T.Errorf("%v: no workspace symbols", m)
			return
		}
		sameLocs(env, m, []string{rel(env, syms[0].Location.URI, syms[0].Location.Range.Start)}, m.Args[1:2])
	},
	// fold("file", golden), selection(src, golden), tokens("file", golden),
	// organize("file", golden): structural answers as goldens.
	"fold": func(env *servertest.Env, m servertest.Marker) {
		var folds []struct {
			StartLine int    `json:"startLine"`
			EndLine   int    `json:"endLine"`
			Kind      string `json:"kind"`
		}
		if !call(env, m, "textDocument/foldingRange", map[string]any{"textDocument": map[string]string{"uri": env.URI(m.Args[0].Str)}}, &folds) {
			return
		}
		var b strings.Builder
		for _, f := range folds {
			fmt.Fprintf(&b, "%d-%d %s\n", f.StartLine, f.EndLine, f.Kind)
		}
		env.CheckGolden(m, m.Args[1].Str, []byte(b.String()))
	},
	"selection": func(env *servertest.Env, m servertest.Marker) {
		src := env.Loc(m, m.Args[0])
		var sels []json.RawMessage
		params := map[string]any{"textDocument": map[string]string{"uri": env.URI(src.File)}, "positions": []any{src.Position(env.Encoding)}}
		if !call(env, m, "textDocument/selectionRange", params, &sels) || len(sels) != 1 {
			return
		}
		var b strings.Builder
		raw := sels[0]
		for len(raw) > 0 && string(raw) != "null" {
			var s struct {
				Range  wireRange       `json:"range"`
				Parent json.RawMessage `json:"parent"`
			}
			_ = json.Unmarshal(raw, &s)
			fmt.Fprintf(&b, "%d:%d-%d:%d\n", s.Range.Start.Line, s.Range.Start.Character, s.Range.End.Line, s.Range.End.Character)
			raw = s.Parent
		}
		env.CheckGolden(m, m.Args[1].Str, []byte(b.String()))
	},
	"tokens": func(env *servertest.Env, m servertest.Marker) {
		var toks struct {
			Data []int `json:"data"`
		}
		if !call(env, m, "textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]string{"uri": env.URI(m.Args[0].Str)}}, &toks) {
			return
		}
		lines := strings.Split(string(env.Files[m.Args[0].Str]), "\n")
		var b strings.Builder
		line, char := 0, 0
		for i := 0; i+4 < len(toks.Data); i += 5 {
			if toks.Data[i] > 0 {
				char = 0
			}
			line += toks.Data[i]
			char += toks.Data[i+1]
			text := lines[line][char : char+toks.Data[i+2]] // the fixtures are ASCII
			fmt.Fprintf(&b, "%d:%d %s %s", line, char, text, tokenTypes[toks.Data[i+3]])
			if toks.Data[i+4] != 0 {
				b.WriteString(" declaration")
			}
			b.WriteString("\n")
		}
		env.CheckGolden(m, m.Args[1].Str, []byte(b.String()))
	},
	"organize": func(env *servertest.Env, m servertest.Marker) {
		var actions []struct {
			Title string `json:"title"`
			Edit  struct {
				Changes map[string][]struct {
					NewText string `json:"newText"`
				} `json:"changes"`
			} `json:"edit"`
		}
		params := map[string]any{
			"textDocument": map[string]string{"uri": env.URI(m.Args[0].Str)},
			"range":        wireRange{}, "context": map[string]any{"diagnostics": []any{}, "only": []string{"source.organizeImports"}},
		}
		if !call(env, m, "textDocument/codeAction", params, &actions) {
			return
		}
		var b strings.Builder
		for _, a := range actions {
			for _, edits := range a.Edit.Changes {
				for _, e := range edits {
					fmt.Fprintf(&b, "%s:\n%s\n", a.Title, e.NewText)
				}
			}
		}
		env.CheckGolden(m, m.Args[1].Str, []byte(b.String()))
	},
}

var tokenTypes = []string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter",
	"variable", "property", "enumMember", "function", "method", "keyword", "comment", "string", "number"}

type wireSymbol struct {
	Name     string       `json:"name"`
	Kind     int          `json:"kind"`
	Children []wireSymbol `json:"children"`
}

func printSymbols(b *strings.Builder, syms []wireSymbol, depth int) {
	for _, s := range syms {
		fmt.Fprintf(b, "%s%s (%d)\n", strings.Repeat("  ", depth), s.Name, s.Kind)
		printSymbols(b, s.Children, depth+1)
	}
}

// pushedDiagnostics waits for diagnostics pushed for uri and counts the
// latest. It does not consume the notifications, which other markers read
// too.
func pushedDiagnostics(env *servertest.Env, uri string) int {
	count := -1
	err := env.Client.AwaitNotifications(env.Ctx, "textDocument/publishDiagnostics", func(notes []*servertest.Message) bool {
		for i := len(notes) - 1; i >= 0; i-- {
			var p struct {
				URI         string            `json:"uri"`
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			_ = json.Unmarshal(notes[i].Params, &p)
			if p.URI == uri {
				count = len(p.Diagnostics)
				return true
			}
		}
		return false
	})
	if err != nil {
		env.T.Errorf("no diagnostics pushed for %s: %v", uri, err)
		return -1
	}
	return count
}

func TestLSPMarkers(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			servertest.Runner{
				NewServer: newTestServer,
				Checkers:  lspCheckers,
				Capabilities: map[string]any{
					"general": map[string]any{"positionEncodings": []string{enc}},
					"window":  map[string]any{"workDoneProgress": true},
				},
			}.Run(t, "../../testdata/lsp/*/*.txtar")
		})
	}
}
