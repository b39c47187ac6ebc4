package checks

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// checkGo type-checks the packages holding files, unsaved contents included,
// and reports the errors go/types and the go command find in them: what
// gopls shows as compile errors.
func checkGo(ctx context.Context, root string, files []string, overlay map[string][]byte) ([]Diagnostic, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return nil, &notInstalled{"go", "install Go from go.dev/dl"}
	}
	byDir := map[string][]string{}
	for _, f := range files {
		byDir[filepath.Dir(f)] = append(byDir[filepath.Dir(f)], f)
	}
	var out []Diagnostic
	for dir, group := range byDir {
		patterns := make([]string, len(group))
		for i, f := range group {
			patterns[i] = "file=" + f
		}
		cfg := &packages.Config{
			Context: ctx,
			Dir:     dir,
			Mode:    packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
			Tests:   true, // a _test.go file is checked in its test package
			Overlay: overlay,
		}
		pkgs, err := packages.Load(cfg, patterns...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		seen := map[string]bool{}
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			for _, e := range p.Errors {
				d, ok := goDiagnostic(e)
				if key := d.Path + ":" + strconv.Itoa(d.Line) + ":" + strconv.Itoa(d.Column) + d.Message; ok && !seen[key] {
					seen[key] = true
					out = append(out, d)
				}
			}
		})
	}
	return out, nil
}

// goDiagnostic parses a packages.Error, whose Pos is "file:line:col" (or
// "file:line", or "" for errors of the whole package).
func goDiagnostic(e packages.Error) (Diagnostic, bool) {
	d := Diagnostic{Severity: "error", Message: e.Msg, Source: sourceGo, Code: goErrorKind(e.Kind)}
	pos := e.Pos
	if pos == "" || pos == "-" {
		return d, false
	}
	parts := strings.Split(pos, ":")
	nums := []int{}
	for len(parts) > 1 {
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		parts = parts[:len(parts)-1]
	}
	if len(nums) == 0 {
		return d, false
	}
	d.Path, d.Line, d.Column = strings.Join(parts, ":"), nums[0], 1
	if len(nums) > 1 {
		d.Column = nums[1]
	}
	return d, d.Path != ""
}

func goErrorKind(k packages.ErrorKind) string {
	switch k {
	case packages.TypeError:
		return "TypeError"
	case packages.ParseError:
		return "ParseError"
	case packages.ListError:
		return "ListError"
	}
	return ""
}
