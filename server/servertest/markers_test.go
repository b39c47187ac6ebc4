package servertest_test

import (
	"context"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

type wordParams struct {
	URI      string `json:"uri"`
	Position struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	} `json:"position"`
}

// newWordServer serves test/wordAt (the identifier at a position) and
// test/text (a document's text), enough to exercise the runner end to end.
func newWordServer(testing.TB) *server.Server {
	reg := server.NewRegistry()
	server.Handle(reg, "test/wordAt", server.Concurrent, func(ctx context.Context, p wordParams) (string, error) {
		doc, ok := server.SnapshotOf(ctx).(*document.Snapshot).Document(p.URI)
		if !ok {
			return "", server.InvalidParams("not open: %s", p.URI)
		}
		off, err := doc.Offset(document.Position{Line: p.Position.Line, Character: p.Position.Character}, document.Encoding(server.ConnOf(ctx).Encoding()))
		if err != nil {
			return "", server.InvalidParams("%v", err)
		}
		end := off
		for end < len(doc.Text) {
			r, size := utf8.DecodeRune(doc.Text[end:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
				break
			}
			end += size
		}
		return string(doc.Text[off:end]), nil
	})
	server.Handle(reg, "test/text", server.Concurrent, func(ctx context.Context, p wordParams) (string, error) {
		doc, ok := server.SnapshotOf(ctx).(*document.Snapshot).Document(p.URI)
		if !ok {
			return "", server.InvalidParams("not open: %s", p.URI)
		}
		return string(doc.Text), nil
	})
	l := lsp.New(host.New(host.Options{}))
	l.Register(reg)
	return server.New(server.Options{Registry: reg, Profile: l.Profile()})
}

var checkers = map[string]servertest.Checker{
	// word(loc, "want"): the identifier the server finds at loc.
	"word": func(env *servertest.Env, m servertest.Marker) {
		loc := env.Loc(m, m.Args[0])
		var got string
		err := env.Client.Call(env.Ctx, "test/wordAt", map[string]any{"uri": env.URI(loc.File), "position": loc.Position(env.Encoding)}, &got)
		if err != nil {
			env.T.Errorf("%v: %v", m, err)
		} else if got != m.Args[1].Str {
			env.T.Errorf("%v: word at %v = %q, want %q", m, loc, got, m.Args[1].Str)
		}
	},
	// text("file", golden): the server's copy of file equals @golden.
	"text": func(env *servertest.Env, m servertest.Marker) {
		var got string
		if err := env.Client.Call(env.Ctx, "test/text", map[string]any{"uri": env.URI(m.Args[0].Str)}, &got); err != nil {
			env.T.Fatalf("%v: %v", m, err)
		}
		env.CheckGolden(m, m.Args[1].Str, []byte(got))
	},
}

func TestMarkerRunner(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			servertest.Runner{
				NewServer:    newWordServer,
				Checkers:     checkers,
				Capabilities: map[string]any{"general": map[string]any{"positionEncodings": []string{enc}}},
			}.Run(t, "../../testdata/transport/*.txtar")
		})
	}
}

func TestParseMarkers(t *testing.T) {
	src := []byte("x := 1 //@loc(a, \"x\"), check(a, 3, -2, `raw`, key=\"v\", flag=on)\n# py #@one()\nno markers here\n")
	ms, err := servertest.ParseMarkers("f.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[0].Name != "loc" || ms[1].Name != "check" || ms[2].Name != "one" || ms[2].Line != 1 {
		t.Fatalf("markers = %+v", ms)
	}
	args := ms[1].Args
	if len(args) != 6 || args[0].Kind != servertest.ArgIdent || args[1].Int != 3 || args[2].Int != -2 ||
		args[3].Str != "raw" || args[4].Key != "key" || args[4].Str != "v" || args[5].Key != "flag" || args[5].Str != "on" {
		t.Fatalf("args = %+v", args)
	}
	for _, bad := range []string{"//@nope", "//@a(\"unterminated)", "//@a(1 2)", "//@a() junk", "//@(x)"} {
		if _, err := servertest.ParseMarkers("bad.go", []byte(bad)); err == nil {
			t.Errorf("%s: want a parse error", bad)
		}
	}
}
