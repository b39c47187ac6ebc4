package checks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// findTool looks for a Node tool in the node_modules/.bin folders from dir up
// to root (the project's own version first), then on PATH.
func findTool(root, dir, name string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "node_modules", ".bin", name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, true
		}
		if d == root || !strings.HasPrefix(d, root) || filepath.Dir(d) == d {
			break
		}
	}
	p, err := exec.LookPath(name)
	return p, err == nil
}

// nearest returns the closest folder from dir up to root holding name, or "".
func nearest(root, dir, name string) string {
	for d := dir; strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return d
		}
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// run runs a toolchain command in dir, returning its standard output and
// error whatever its exit status: checkers exit non-zero when they find
// errors.
func run(ctx context.Context, dir, name string, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if out.Len() == 0 && errOut.Len() == 0 && err != nil {
		return nil, nil, fmt.Errorf("%s failed: %v", filepath.Base(name), err)
	}
	return out.Bytes(), errOut.Bytes(), nil
}

// tscLine is one of tsc's --pretty false diagnostics:
// path(line,col): error TS2322: message.
var tscLine = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$`)

// checkTypeScript runs tsc --noEmit on each tsconfig project holding files
// (or on the files alone, where there is none).
func checkTypeScript(ctx context.Context, root string, files []string) ([]Diagnostic, error) {
	projects := map[string][]string{}
	for _, f := range files {
		projects[nearest(root, filepath.Dir(f), "tsconfig.json")] = append(projects[nearest(root, filepath.Dir(f), "tsconfig.json")], f)
	}
	var out []Diagnostic
	for project, group := range projects {
		dir := project
		if dir == "" {
			dir = filepath.Dir(group[0])
		}
		tsc, ok := findTool(root, dir, "tsc")
		if !ok {
			return nil, &notInstalled{"tsc", "npm install --save-dev typescript"}
		}
		args := []string{"--noEmit", "--pretty", "false"}
		if project != "" {
			args = append(args, "-p", project)
		} else {
			args = append(args, group...)
		}
		text, _, err := run(ctx, dir, tsc, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, parseTSC(dir, text)...)
	}
	return out, nil
}

func parseTSC(dir string, text []byte) []Diagnostic {
	var out []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		m := tscLine.FindStringSubmatch(line)
		if m == nil {
			if n := len(out); n > 0 && strings.HasPrefix(line, " ") { // a message's continuation
				out[n-1].Message += "\n" + strings.TrimSpace(line)
			}
			continue
		}
		path := m[1]
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		out = append(out, Diagnostic{Path: path, Line: ln, Column: col, Severity: m[4], Code: m[5], Message: m[6], Source: sourceTSC, UTF16: true})
	}
	return out
}

// checkPython runs pyright --outputjson over the files.
func checkPython(ctx context.Context, root string, files []string) ([]Diagnostic, error) {
	pyright, ok := findTool(root, root, "pyright")
	if !ok {
		return nil, &notInstalled{"pyright", "npm install --save-dev pyright, or pip install pyright"}
	}
	text, _, err := run(ctx, root, pyright, append([]string{"--outputjson"}, files...)...)
	if err != nil {
		return nil, err
	}
	return parsePyright(text)
}

func parsePyright(text []byte) ([]Diagnostic, error) {
	type position struct{ Line, Character int }
	var report struct {
		GeneralDiagnostics []struct {
			File     string
			Severity string
			Message  string
			Rule     string
			Range    struct{ Start, End position }
		}
	}
	if err := json.Unmarshal(text, &report); err != nil {
		return nil, fmt.Errorf("pyright's report: %w", err)
	}
	var out []Diagnostic
	for _, d := range report.GeneralDiagnostics {
		if d.Severity != "error" && d.Severity != "warning" {
			continue // information: not a problem
		}
		out = append(out, Diagnostic{Path: d.File, Line: d.Range.Start.Line + 1, Column: d.Range.Start.Character + 1,
			EndLine: d.Range.End.Line + 1, EndColumn: d.Range.End.Character + 1, Severity: d.Severity, Code: d.Rule,
			Message: d.Message, Source: sourcePyright, UTF16: true})
	}
	return out, nil
}

// kotlincLine is one of kotlinc's diagnostics: path:line:col: error: message.
var kotlincLine = regexp.MustCompile(`^(.+\.kts?):(\d+):(\d+): (error|warning): (.*)$`)

// maxKotlinFiles bounds the module kotlinc compiles alongside the files.
const maxKotlinFiles = 2000

// checkKotlin compiles the files with the rest of the workspace's Kotlin
// sources (a file alone would miss every declaration of its siblings) into a
// scratch folder.
func checkKotlin(ctx context.Context, root string, files []string) ([]Diagnostic, error) {
	kotlinc, err := exec.LookPath("kotlinc")
	if err != nil {
		return nil, &notInstalled{"kotlinc", "install the Kotlin compiler, e.g. sdk install kotlin"}
	}
	sources := map[string]bool{}
	for _, f := range files {
		sources[f] = true
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(sources) >= maxKotlinFiles:
			return filepath.SkipDir
		case d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "build"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".kt"):
			sources[p] = true
		}
		return nil
	})
	scratch, err := os.MkdirTemp("", "kast-kotlinc")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	args := []string{"-d", scratch, "-nowarn"}
	for s := range sources {
		args = append(args, s)
	}
	_, text, err := run(ctx, root, kotlinc, args...) // kotlinc reports on stderr
	if err != nil {
		return nil, err
	}
	return parseKotlinc(text), nil
}

func parseKotlinc(text []byte) []Diagnostic {
	var out []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		m := kotlincLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		out = append(out, Diagnostic{Path: m[1], Line: ln, Column: col, Severity: m[4], Message: m[5], Source: sourceKotlinc})
	}
	return out
}
