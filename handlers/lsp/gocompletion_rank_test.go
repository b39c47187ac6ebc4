package lsp

import (
	"strings"
	"testing"
)

// goRankSources is a small module whose member completions gopls ranks by
// what the cursor expects: web is a library-like package, main uses it.
var goRankSources = map[string]string{
	"go.mod": "module example.com/c\n",
	"web/web.go": "package web\n\n" +
		"type Header map[string][]string\n\n" +
		"func (h Header) Add(k, v string)      {}\n" +
		"func (h Header) Clone() Header        { return h }\n" +
		"func (h Header) Get(k string) string  { return \"\" }\n" +
		"func (h Header) Values(k string) []string { return nil }\n\n" +
		"type Writer struct{ Status int }\n\n" +
		"func (w *Writer) Header() Header { return nil }\n" +
		"func (w *Writer) Hijack() (int, error) { return 0, nil }\n\n" +
		"func Scan(a ...any) int            { return 0 }\n" +
		"func Scanf(f string) int           { return 0 }\n" +
		"type ScanState interface{ Read() }\n" +
		"func Sprint(a ...any) string       { return \"\" }\n" +
		"func Sprintf(f string, a ...any) string { return \"\" }\n" +
		"func Sprintln(a ...any) string     { return \"\" }\n\n" +
		"type Cmd struct {\n\tShort string\n\tSilence bool\n\tflagBuf *Writer\n\tPreRun func(args []string)\n\tPreRunE func(args []string) error\n}\n\n" +
		"func (c *Cmd) Parent() *Cmd { return c }\n" +
		"func (c *Cmd) Context() *Writer { return nil }\n" +
		"func (c *Cmd) Find(args []string) (*Cmd, []string, error) { return c, nil, nil }\n" +
		"func (c *Cmd) Flag(name string) *Writer { return nil }\n" +
		"func (c *Cmd) Flags() *Writer           { return nil }\n" +
		"func (c *Cmd) Gen() error               { return nil }\n" +
		"func (c *Cmd) GroupID() string          { return \"\" }\n\n" +
		"type Kind uint\n\nconst (\n\tInvalid Kind = iota\n\tInt\n\tInt8\n\tInterface\n)\n\n" +
		"func Indirect() int { return 0 }\n\n" +
		"type Duration int64\n\nfunc (d Duration) Abs() Duration { return d }\n\ntype Month int\n\n" +
		"const (\n\tNanosecond Duration = 1\n\tMicrosecond = 1000 * Nanosecond\n\tMinute = 60 * Microsecond\n)\n\n" +
		"const March Month = 3\n",
	// A file no build compiles (cgo's input, a generator's template).
	"web/defs_gen.go": "//go:build ignore\n\npackage web\n\nconst ScanIgnored = 1\n",
	"main.go": "package main\n\nimport \"example.com/c/web\"\n\n" +
		"func check(s string) {}\n\n" +
		"func use(w *web.Writer, c *web.Cmd) error {\n" +
		"\tcheck(web.Sprint())\n" + // line 7: a string argument
		"\tweb.Scan()\n" + // line 8: a statement
		"\th := w.Header()\n" + // line 9: a deep completion through Header()
		"\tf := c.Flags()\n" + // line 10: Find gives three values, not one
		"\t_, _ = h, f\n" +
		"\treturn c.Gen()\n" + // line 12: an error is returned
		"}\n\n" +
		"func kinds(k web.Kind, d web.Duration) {\n" +
		"\tswitch k {\n" +
		"\tcase web.Int8:\n" +
		"\tcase web.Int:\n" + // line 18: a case of a switch on a Kind
		"\t}\n" +
		"\t_ = d < web.Minute\n" + // line 20: compared with a Duration
		"}\n\n" +
		"type T struct{}\n\n" +
		"func (T) check(n int) {\n" +
		"\tcheck(web.Sprint())\n" + // line 26: the function check, not the method
		"}\n\n" +
		"func parent(c *web.Cmd) {\n" +
		"\tp := c.Parent()\n" + // line 30: a function-typed field is called too
		"\t_ = p\n" +
		"}\n\n" +
		"func scattered(c *web.Cmd) {\n" +
		"\t_ = c.e\n" + // line 35: e is inside Context, and none of its members starts with it
		"}\n",
}

// Member completion in Go ranks as gopls does: values of the type the
// cursor expects first (an argument's, a result's, a switch tag's, the
// other operand's), package members by name alone, calls whose result
// count does not fit an assignment last, and up to three deep completions
// that insert the chain (Header().Clone).
func TestLSPGoMemberCompletionRanksLikeGopls(t *testing.T) {
	e := startLSP(t, goRankSources)
	e.reindex()
	for _, c := range []struct {
		line, char, n int
		want, why     string
	}{
		{7, 12, 5, "Sprint Sprintf Sprintln Scan ScanState", "web.S as a string argument: want the string results first"},
		{8, 6, 5, "Scan ScanState Scanf Sprint Sprintf", "web.S in a statement: want the package's names by name alone, none from a //go:build ignore file"},
		{9, 9, 4, "Header Header().Clone Header().Get Header().Values", "h := w.H: want Header, then the members of its result that give a value"},
		// The deep completions through Flags() rank by their own kind: a
		// field before a method; flagBuf, unexported, is not for main.
		{10, 9, 5, "Flag Flags Flags().Status Flags().Header Find", "f := c.F: want Find (three results for one name) last"},
		{12, 11, 2, "Gen GroupID", "return c.G (an error): want Gen first"},
		{18, 11, 5, "Int Interface Invalid Int8 Indirect", "case web.I in a switch on a Kind: want the Kinds first, the one another case has after them"},
		{20, 14, 5, "Microsecond Minute Microsecond.Abs Minute.Abs March", "d < web.M with d a Duration: want the Durations (typed through the constants they name) first, deep ones too"},
		{26, 12, 3, "Sprint Sprintf Sprintln", "check(web.S) in the method check(n int): want the function check's string first"},
		{30, 9, 6, "PreRunE Parent Parent().PreRunE Parent().Short Parent().Silence PreRun", "p := c.P: want PreRun (a function field giving nothing) after the values"},
	} {
		got := e.labelsAt("main.go", c.line, c.char)
		if top := strings.Join(got[:min(c.n, len(got))], " "); top != c.want {
			t.Errorf("line %d: %q, want %q: %s", c.line, top, c.want, c.why)
		}
	}
	for _, l := range e.labelsAt("main.go", 35, 8) {
		if strings.Contains(l, ").") {
			t.Errorf("c.e: %q offered, whose names none start with e", l)
		}
	}
}
