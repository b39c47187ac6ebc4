package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server/servertest"
)

// uriCounts counts an analyzer output's incidents from its text, without
// a YAML parser: the "- uri:" items under each ruleset's violations and
// insights.
func uriCounts(t *testing.T, path string) (violations, insights int) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "- "):
			section = ""
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			section = strings.TrimSuffix(strings.TrimSpace(line), ":")
		case strings.HasPrefix(line, "      - uri:"):
			switch section {
			case "violations":
				violations++
			case "insights":
				insights++
			}
		}
	}
	return violations, insights
}

// `kast kaiak fix --analysis` converts every incident of each analyzer
// output of the reference folder: the counts it prints, and the incidents
// it lists, are checked against a count made from the file's text.
func TestKaiakFixConvertsReferenceAnalyses(t *testing.T) {
	dir := servertest.Shared(t, "reference/kaiak")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) < 6 {
		t.Fatalf("%d analyzer outputs in %s, want 6", len(files), dir)
	}
	total := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			wantV, wantI := uriCounts(t, file)
			for _, insights := range []bool{false, true} {
				args := []string{"kaiak", "fix", "--analysis", file, "--dry-run", "--json", "--workspace", t.TempDir()}
				want := wantV
				if insights {
					args = append(args, "--insights")
					want += wantI
				}
				out, err := kastCmd(t, args...).Output()
				if err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				header, list, ok := bytes.Cut(out, []byte("\n["))
				if !ok {
					t.Fatalf("no JSON list in:\n%s", out)
				}
				var incidents []map[string]any
				if err := json.Unmarshal(append([]byte("["), list...), &incidents); err != nil {
					t.Fatal(err)
				}
				if len(incidents) != want {
					t.Errorf("insights=%v: %d incidents listed, the file has %d", insights, len(incidents), want)
				}
				if !insights && !bytes.Contains(header, []byte("Converted "+itoa(wantV)+" incidents")) {
					t.Errorf("the printed count is not %d:\n%s", wantV, header)
				}
				ids := map[string]bool{}
				for _, in := range incidents {
					id := in["id"].(string)
					if ids[id] || in["rule_id"] == "" || in["message"] == "" || in["severity"] == "" {
						t.Errorf("incident %v", in)
					}
					ids[id] = true
				}
			}
			total += wantV
			t.Logf("%d incidents, %d insight incidents", wantV, wantI)
		})
	}
	t.Logf("%d incidents in %d analyzer outputs", total, len(files))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// `kast kaiak fix` end to end on the Java fixture with its analyzer output
// (URIs of the container the analyzer ran in): progress per file, the
// diffs, the answers per --auto-approve, and the summary.
func TestKaiakFixEndToEnd(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	analysis := filepath.Join(kaiaktest.Testdata(), "java-analysis.yaml")
	for _, mode := range []string{"none", "all"} {
		t.Run(mode, func(t *testing.T) {
			ws := kaiaktest.Fixture(t, "java")
			before := readFile(t, filepath.Join(ws, "src/main/java/com/example/Order.java"))
			out, err := kastCmd(t, "kaiak", "fix", "--analysis", analysis, "--workspace", ws, "--auto-approve", mode).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			text := string(out)
			for _, want := range []string{
				"Converted 4 incidents (1 file-level) from 2 violations in 1 rulesets; 4 files.",
				"▸ Fixing 1 incident(s) in pom.xml (file 1 of 4)",
				"▸ Fixing 1 incident(s) in src/main/java/com/example/HelloServlet.java (file 2 of 4)",
				"+import jakarta.servlet.annotation.WebServlet;",
				"-import javax.persistence.Entity;",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			after := readFile(t, filepath.Join(ws, "src/main/java/com/example/Order.java"))
			switch mode {
			case "all":
				if !strings.Contains(text, "4 incidents processed in 4 files; 3 changes proposed: 3 applied, 0 rejected") || !strings.Contains(text, "✓ applied") {
					t.Errorf("summary:\n%s", text)
				}
				if after != strings.ReplaceAll(before, "javax.", "jakarta.") {
					t.Errorf("Order.java:\n%s", after)
				}
			case "none":
				if !strings.Contains(text, "3 changes proposed: 0 applied, 3 rejected") {
					t.Errorf("summary:\n%s", text)
				}
				if after != before {
					t.Error("a rejected change was written")
				}
			}
		})
	}
	// One incident only.
	ws := kaiaktest.Fixture(t, "java")
	out, err := kastCmd(t, "kaiak", "fix", "--analysis", analysis, "--workspace", ws, "--auto-approve", "all",
		"--incidents", "eap8/eap7/javax-to-jakarta-import-00001/1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Selected 1 of them") || !strings.Contains(string(out), "1 incidents processed in 1 files") {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(readFile(t, filepath.Join(ws, "src/main/java/com/example/HelloServlet.java")), "jakarta") {
		t.Error("an unselected incident's file changed")
	}
}

func readFile(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// `kast kaiak rpc` on stdio: Content-Length framing; shutdown ends the
// process with status 0.
func TestKaiakRPCStdio(t *testing.T) {
	kaiaktest.Env(t, "")
	c, cmd := servertest.Process(t, kastBin, servertest.Header, "kaiak", "rpc")
	var created map[string]any
	if err := c.Call(testCtx(t), "kaiak/session/create", map[string]any{"workspace_path": t.TempDir()}, &created); err != nil {
		t.Fatal(err)
	}
	if created["status"] != "created" {
		t.Fatalf("create: %v", created)
	}
	if err := c.Call(testCtx(t), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// `kast kaiak rpc --listen unix:PATH`: a socket only its owner can open;
// each connection is a Kaiak client. Other networks are refused.
func TestKaiakRPCListen(t *testing.T) {
	kaiaktest.Env(t, "")
	sock := filepath.Join(t.TempDir(), "kaiak.sock")
	cmd := kastCmd(t, "kaiak", "rpc", "--listen", "unix:"+sock)
	stderr := watchStderr(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	stderr.waitFor(t, "msg=listening")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v, want 0600", fi, err)
	}
	for i := range 2 {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		c := servertest.Dial(t, conn, servertest.Header)
		var created map[string]any
		if err := c.Call(testCtx(t), "kaiak/session/create", map[string]any{"workspace_path": t.TempDir()}, &created); err != nil || created["status"] != "created" {
			t.Fatalf("client %d: %v %v\n%s", i, created, err, stderr.String())
		}
		c.Close()
	}
	_ = cmd.Process.Signal(os.Interrupt)
	if got := waitExit(t, cmd); got != 0 {
		t.Errorf("exit %d\n%s", got, stderr.String())
	}
	if out, err := kastCmd(t, "kaiak", "rpc", "--listen", "tcp:127.0.0.1:0").CombinedOutput(); err == nil || !strings.Contains(string(out), "unix:PATH only") {
		t.Errorf("tcp accepted: %v %s", err, out)
	}
}
