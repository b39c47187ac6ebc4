package servertest

// A transcript is a protocol conversation written down as a txtar archive, to
// be read like documentation and replayed as a test:
//
//	Resolving the call in Use.kt names the function declared in Greeter.kt.
//
//	-- transcript --
//	workspace ../kotlin.txtar
//
//	# Positions are byte offsets; {{offset}} finds them in the workspace.
//	-> {"method":"raw/resolve","params":{"position":{
//	     "filePath":"$ROOT/src/Use.kt","offset":{{offset "src/Use.kt" "greet("}}}}}
//	<- {"result":{"symbol":{"fqName":"sample.greet","kind":"FUNCTION","$...":true},
//	     "schemaVersion":"$NUMBER"}}
//	-- src/Extra.kt --
//	package sample
//
// The archive's comment says what the transcript shows. The section named
// "transcript" holds the steps; every other section is a file of the
// workspace, written under a fresh root ($ROOT) before the server starts,
// except sections whose name starts with "@": those are data for the test's
// server builder (Workspace.Data), such as a scripted model's replies, and
// sections named "$OUTSIDE/…": files of a second fresh folder, outside the
// root, for the links a hostile client probes with.
//
// Steps, one per line; a step's JSON may go on over the following lines that
// start with a space, a tab, "}" or "]":
//
//	-> {"method":M,"params":P}   a request; the runner gives it an id (or
//	                             uses the "id" given) and waits for its reply
//	<- {"result":R}              the reply to the request above, or
//	<- {"error":{...}}           its error; "id" is compared only if given
//	->name {...}, <-name {...}   a request left in flight while the steps
//	                             between run, and its reply; $name is its id
//	~> {"method":M,"params":P}   a notification to the server
//	<~ {"method":M,"params":P}   the next notification of method M (it must
//	                             match: notifications of M are not skipped)
//	<~* {"method":M,...}         the first notification of M that matches,
//	                             dropping those of M before it
//	<= {"method":M,"params":P}   the next request of method M from the server
//	                             (see answer for what it gets back); its
//	                             "id" is compared only if given
//	=> text                      a frame sent as is (malformed JSON, a batch);
//	                             the replies that match no request are the <-
//	                             lines after it, in any order
//
// Lines starting with # are comments. Directives:
//
//	workspace ARCHIVE            start from that archive's files (a path
//	                             relative to the transcript); before any step
//	link PATH TARGET             make PATH (relative to the root) a symbolic
//	                             link to TARGET ($ROOT and $OUTSIDE spliced
//	                             in); before any step
//	strict                       every notification and server request must
//	                             be expected, whatever its method
//	poll                         re-send the next request, with backoff, until
//	                             its reply matches or the step's deadline ends:
//	                             for a state no notification announces
//	let NAME JSON                bind $NAME to JSON as it is now, such as a
//	                             file's {{hash}} before an edit changes it
//	answer METHOD JSON           answer the server's requests of METHOD with
//	                             JSON as result (by default they get null)
//	file PATH unchanged          as the workspace had it at the start
//	file PATH contains "text"    (a Go string literal); also lacks
//	file PATH matches "regexp"   also notmatches
//	file GLOB exists             also absent: no file matches GLOB
//
// A file's PATH is relative to the root, or absolute once its variables are
// spliced in (file $sessionPath exists).
//
// Values. Requests and expectations are JSON; before parsing, {{...}} actions
// of text/template run with these functions, reading the workspace as it is
// when the step runs:
//
//	{{offset "rel" "text"}}      byte offset of the first "text" in rel
//	{{offset "rel" "text" 2}}    of the third
//	{{lastOffset "rel" "text"}}  of the last
//	{{hash "rel"}}               hex SHA-256 of rel's content
//	{{size "rel"}}               rel's length in bytes
//	{{uri "rel"}}                rel's file:// URI ("." for the root)
//	{{add (size "rel") 1}}       a sum
//
// Then, in JSON strings (a literal $ is written $$):
//
//	"$ROOT/x"                    the workspace root (absolute, symlinks
//	                             resolved), spliced into the string; also
//	                             $OUTSIDE, the folder outside it
//	"$name"                      the value captured or bound as name, of any
//	                             JSON type; names start with a lower-case letter
//	"$ANY"                       in an expectation: any value; also $STRING,
//	                             $NUMBER, $BOOL, $UUID, $TIME (RFC 3339),
//	                             $DURATION (a number >= 0 or "1.5s"), $HASH
//	                             (16+ hex digits), $PATH (an absolute path)
//	"$MATCH:regexp"              a string the regexp matches ($name in it is
//	                             the variable's value, quoted)
//	"$name=STRING"               matches like $STRING and captures the value
//	                             as name, for later steps
//
// Comparison is semantic: key order is free and numbers compare by value.
// Objects and arrays must match exactly unless they say otherwise: an object
// with the key "$..." (say "$...": true) may have keys it does not list, and
// an array whose last element is "$..." may have more elements. A failed step
// reports its line, the places that differ and a line diff of what was
// expected against what came, both restricted to what the step lists.
//
// At the end, a notification (or server request) of a method some <~ (or <=)
// step waits for that no step consumed fails the transcript (under strict,
// of any method), and so does a reply that matched no request and no <-
// step: a transcript lists them all.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/server"
)

// Transcripts replays transcript archives against a server.
type Transcripts struct {
	// NewServer builds the server for one transcript, over its workspace.
	NewServer func(t *testing.T, ws *Workspace) *server.Server
	// Framing of the connection (Header by default).
	Framing Framing
	// StepTimeout bounds each step: a guard against hangs, not a speed
	// check. 0 means 60 s.
	StepTimeout time.Duration
	// CheckResult, when set, also sees every successful reply after the
	// transcript's own comparison, such as a check against a schema.
	CheckResult func(t *testing.T, method string, result json.RawMessage)
}

// RunTranscripts replays the archives matching pattern, each as a subtest,
// on a server newServer builds for the transcript's workspace root.
func RunTranscripts(t *testing.T, pattern string, framing Framing, newServer func(t *testing.T, root string) *server.Server) {
	t.Helper()
	Transcripts{Framing: framing, NewServer: func(t *testing.T, ws *Workspace) *server.Server {
		return newServer(t, ws.Root)
	}}.Run(t, pattern)
}

// Run replays the archives matching pattern, each as a subtest named after
// its file. A pattern matching nothing fails: a moved folder must not turn
// into a silent pass.
func (r Transcripts) Run(t *testing.T, pattern string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts match %s", pattern)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			tr, err := ParseTranscript(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.run(t, tr); err != nil {
				t.Error(err)
			}
		})
	}
}

// Workspace is a transcript's workspace, as the server builder sees it.
type Workspace struct {
	// Root is the absolute workspace root, symlinks resolved.
	Root    string
	data    map[string][]byte
	initial map[string][]byte // rel → content when the server started
	vars    map[string]any
}

// Data returns the content of the archive section "@name", or nil.
func (w *Workspace) Data(name string) []byte { return w.data[name] }

// Set binds a value the transcript may use as $name; the builder uses it
// for what it alone knows, such as a data directory.
func (w *Workspace) Set(name string, value any) { w.vars[name] = value }

func (w *Workspace) path(rel string) string { return filepath.Join(w.Root, filepath.FromSlash(rel)) }

// Transcript is a parsed transcript archive.
type Transcript struct {
	File      string
	Comment   string
	Steps     []Step
	Strict    bool // every notification and server request must be expected
	workspace []txtar.File
	outside   []txtar.File // written under $OUTSIDE
	links     [][2]string  // link PATH TARGET directives
	data      map[string][]byte
}

// StepKind says what a step does.
type StepKind int

const (
	StepRequest       StepKind = iota // ->
	StepResponse                      // <-
	StepNotify                        // ~>
	StepNotification                  // <~ and <~*
	StepServerRequest                 // <=
	StepRaw                           // =>
	StepPoll                          // poll
	StepAnswer                        // answer
	StepFile                          // file
	StepLet                           // let
)

// Step is one line (or a few, for long JSON) of a transcript.
type Step struct {
	Kind  StepKind
	Line  int    // 1-based line in the archive
	Label string // of a request left in flight and its reply
	Skip  bool   // <~*: drop non-matching notifications of the method
	// Replies is, for =>, how many <- steps follow it for its replies.
	Replies int
	Text    string // JSON (a template), a raw frame, or the directive's arguments
}

func (s Step) where(file string) string { return fmt.Sprintf("%s:%d", file, s.Line) }

var stepTokens = []struct {
	token string
	kind  StepKind
}{
	// Longest first, so that "<~*" is not read as "<~".
	{"<~*", StepNotification}, {"->", StepRequest}, {"<-", StepResponse},
	{"~>", StepNotify}, {"<~", StepNotification}, {"<=", StepServerRequest}, {"=>", StepRaw},
}

// ParseTranscript reads a transcript archive and its workspace includes.
func ParseTranscript(file string) (*Transcript, error) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	tr := &Transcript{File: file, Comment: string(ar.Comment), data: map[string][]byte{}}
	line := 1 + strings.Count(string(ar.Comment), "\n")
	var body []byte
	bodyLine := 0
	var own []txtar.File
	for _, f := range ar.Files {
		line++ // the "-- name --" line
		switch {
		case f.Name == "transcript":
			body, bodyLine = f.Data, line
		case strings.HasPrefix(f.Name, "@"):
			tr.data[f.Name[1:]] = f.Data
		case strings.HasPrefix(f.Name, outsidePrefix):
			tr.outside = append(tr.outside, txtar.File{Name: strings.TrimPrefix(f.Name, outsidePrefix), Data: f.Data})
		default:
			own = append(own, f)
		}
		line += strings.Count(string(f.Data), "\n")
	}
	if body == nil {
		return nil, fmt.Errorf("%s: no transcript section", file)
	}
	var includes []string
	if tr.Steps, includes, tr.links, tr.Strict, err = parseSteps(file, body, bodyLine); err != nil {
		return nil, err
	}
	for _, inc := range includes {
		base, err := txtar.ParseFile(filepath.Join(filepath.Dir(file), filepath.FromSlash(inc)))
		if err != nil {
			return nil, fmt.Errorf("%s: workspace: %v", file, err)
		}
		tr.workspace = append(tr.workspace, base.Files...)
	}
	tr.workspace = append(tr.workspace, own...) // the archive's own files win
	return tr, nil
}

// outsidePrefix starts the names of the sections written outside the root.
const outsidePrefix = "$OUTSIDE/"

func parseSteps(file string, body []byte, firstLine int) (steps []Step, includes []string, links [][2]string, strict bool, err error) {
	fail := func(n int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, n, fmt.Sprintf(format, args...))
	}
	open := -1     // index of a step whose JSON may go on
	awaiting := "" // what the next bare <- answers: "request", "raw" or ""
	raw := -1      // index of the last => step
	inFlight := map[string]bool{}
	for i, text := range strings.Split(strings.TrimRight(string(body), "\n"), "\n") {
		n := firstLine + i
		trimmed := strings.TrimSpace(text)
		if open >= 0 && trimmed != "" && (text[0] == ' ' || text[0] == '\t' || text[0] == '}' || text[0] == ']') {
			steps[open].Text += "\n" + text
			continue
		}
		open = -1
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if step, ok := parseArrow(text, n); ok {
			switch step.Kind {
			case StepRequest:
				if step.Label == "" {
					if awaiting == "request" {
						return nil, nil, nil, false, fail(n, "a request before the reply of the one above")
					}
					awaiting = "request"
				} else {
					inFlight[step.Label] = true
				}
			case StepRaw:
				awaiting, raw = "raw", len(steps)
			case StepResponse:
				switch {
				case step.Label != "":
					if !inFlight[step.Label] {
						return nil, nil, nil, false, fail(n, "no request ->%s above", step.Label)
					}
					delete(inFlight, step.Label)
				case awaiting == "":
					return nil, nil, nil, false, fail(n, "a reply without a request")
				case awaiting == "request":
					awaiting = ""
				case awaiting == "raw":
					steps[raw].Replies++
				}
			}
			if step.Text == "" {
				return nil, nil, nil, false, fail(n, "nothing after %q", strings.Fields(text)[0])
			}
			steps = append(steps, step)
			if step.Kind != StepRaw {
				open = len(steps) - 1
			}
			continue
		}
		word, rest, _ := strings.Cut(trimmed, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "workspace":
			if len(steps) > 0 {
				return nil, nil, nil, false, fail(n, "workspace after the first step")
			}
			includes = append(includes, rest)
		case "link":
			path, target, _ := strings.Cut(rest, " ")
			if len(steps) > 0 || path == "" || filepath.IsAbs(path) || strings.TrimSpace(target) == "" {
				return nil, nil, nil, false, fail(n, "link PATH TARGET: a relative PATH and a TARGET, before the first step")
			}
			links = append(links, [2]string{path, strings.TrimSpace(target)})
		case "strict":
			if len(steps) > 0 {
				return nil, nil, nil, false, fail(n, "strict after the first step")
			}
			strict = true
		case "poll":
			steps = append(steps, Step{Kind: StepPoll, Line: n})
		case "answer":
			steps = append(steps, Step{Kind: StepAnswer, Line: n, Text: rest})
			open = len(steps) - 1
		case "let":
			if name, _, _ := strings.Cut(rest, " "); identPattern.FindString(name) != name || name[0] < 'a' || name[0] > 'z' {
				return nil, nil, nil, false, fail(n, "let NAME JSON: a name starts with a lower-case letter, got %q", name)
			}
			steps = append(steps, Step{Kind: StepLet, Line: n, Text: rest})
			open = len(steps) - 1
		case "file":
			if _, _, _, err := parseFileCheck(rest); err != nil {
				return nil, nil, nil, false, fail(n, "%v", err)
			}
			steps = append(steps, Step{Kind: StepFile, Line: n, Text: rest})
		default:
			return nil, nil, nil, false, fail(n, "unknown step %q (a step starts with ->, <-, ~>, <~, <~*, <= or =>; JSON goes on over indented lines)", word)
		}
	}
	if awaiting == "request" {
		return nil, nil, nil, false, fail(firstLine, "the last request has no reply")
	}
	for label := range inFlight {
		return nil, nil, nil, false, fail(firstLine, "->%s has no reply <-%s", label, label)
	}
	for i, s := range steps {
		if s.Kind == StepPoll && (i+1 == len(steps) || steps[i+1].Kind != StepRequest || steps[i+1].Label != "") {
			return nil, nil, nil, false, fail(s.Line, "poll must precede a request and its reply")
		}
	}
	return steps, includes, links, strict, nil
}

func parseArrow(text string, line int) (Step, bool) {
	for _, st := range stepTokens {
		if !strings.HasPrefix(text, st.token) {
			continue
		}
		rest := text[len(st.token):]
		step := Step{Kind: st.kind, Line: line, Skip: st.token == "<~*"}
		if st.kind == StepRequest || st.kind == StepResponse {
			label, after, _ := strings.Cut(rest, " ")
			step.Label, rest = label, after
		}
		if st.kind == StepRaw {
			step.Text = strings.TrimPrefix(rest, " ")
		} else {
			step.Text = strings.TrimSpace(rest)
		}
		return step, true
	}
	return Step{}, false
}

// parseFileCheck splits "PATH check [ARG]".
func parseFileCheck(s string) (path, check, arg string, err error) {
	f := strings.SplitN(s, " ", 3)
	if len(f) < 2 {
		return "", "", "", fmt.Errorf("file PATH CHECK [ARG]: %q", s)
	}
	path, check = f[0], f[1]
	switch check {
	case "unchanged", "exists", "absent":
		if len(f) == 3 {
			return "", "", "", fmt.Errorf("file %s %s takes no argument", path, check)
		}
	case "contains", "lacks", "matches", "notmatches":
		if len(f) < 3 {
			return "", "", "", fmt.Errorf("file %s %s needs a quoted argument", path, check)
		}
		if arg, err = strconv.Unquote(strings.TrimSpace(f[2])); err != nil {
			return "", "", "", fmt.Errorf("file %s %s: the argument must be a Go string literal: %v", path, check, err)
		}
	default:
		return "", "", "", fmt.Errorf("unknown file check %q (unchanged, exists, absent, contains, lacks, matches, notmatches)", check)
	}
	return path, check, arg, nil
}

// setUp writes the workspace of tr under a fresh root.
func (tr *Transcript) setUp(t *testing.T) (*Workspace, error) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		return nil, err
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		return nil, err
	}
	ws := &Workspace{Root: root, data: tr.data, initial: map[string][]byte{}, vars: map[string]any{"ROOT": root, "OUTSIDE": outside}}
	write := func(p string, data []byte) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	for _, f := range tr.workspace {
		if err := write(ws.path(f.Name), f.Data); err != nil {
			return nil, err
		}
		ws.initial[f.Name] = f.Data
	}
	for _, f := range tr.outside {
		if err := write(filepath.Join(outside, filepath.FromSlash(f.Name)), f.Data); err != nil {
			return nil, err
		}
	}
	for _, l := range tr.links {
		target, err := splice(l[1], ws.vars)
		if err != nil {
			return nil, fmt.Errorf("link %s: %v", l[0], err)
		}
		p := ws.path(l[0])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(target, p); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// templateFuncs reads the workspace as it is when a step runs.
func (w *Workspace) templateFuncs() template.FuncMap {
	read := func(rel string) ([]byte, error) { return os.ReadFile(w.path(rel)) }
	return template.FuncMap{
		"offset": func(rel, needle string, nth ...int) (int, error) {
			src, err := read(rel)
			if err != nil {
				return 0, err
			}
			n := 0
			if len(nth) > 0 {
				n = nth[0]
			}
			at := -1
			for i := 0; i <= n; i++ {
				j := bytes.Index(src[at+1:], []byte(needle))
				if j < 0 {
					return 0, fmt.Errorf("%s: occurrence %d of %q not found", rel, n, needle)
				}
				at += 1 + j
			}
			return at, nil
		},
		"lastOffset": func(rel, needle string) (int, error) {
			src, err := read(rel)
			if err != nil {
				return 0, err
			}
			if at := bytes.LastIndex(src, []byte(needle)); at >= 0 {
				return at, nil
			}
			return 0, fmt.Errorf("%s: %q not found", rel, needle)
		},
		"hash": func(rel string) (string, error) {
			src, err := read(rel)
			if err != nil {
				return "", err
			}
			sum := sha256.Sum256(src)
			return hex.EncodeToString(sum[:]), nil
		},
		"size": func(rel string) (int, error) {
			src, err := read(rel)
			return len(src), err
		},
		"uri": func(rel string) string { return FileURI(w.path(rel)) },
		"add": func(a, b int) int { return a + b },
	}
}

// expandTemplate runs the {{...}} actions of a step's text.
func (w *Workspace) expandTemplate(text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	tmpl, err := template.New("step").Funcs(w.templateFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}
