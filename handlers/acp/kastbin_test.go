package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The kast binary of this tree, built once for the transcripts that run it
// as a stdio MCP server (`kast mcp`), as an editor would configure it.
var (
	kastBinOnce sync.Once
	kastBinPath string
	kastBinErr  error
	kastBinDir  string
)

func kastBinary(t *testing.T) string {
	t.Helper()
	kastBinOnce.Do(func() {
		kastBinDir, kastBinErr = os.MkdirTemp("", "kast-acp-bin-")
		if kastBinErr != nil {
			return
		}
		kastBinPath = filepath.Join(kastBinDir, "kast")
		out, err := exec.Command("go", "build", "-o", kastBinPath, "../../cmd/kast").CombinedOutput()
		if err != nil {
			kastBinErr = &buildError{err, string(out)}
		}
	})
	if kastBinErr != nil {
		t.Fatalf("building kast: %v", kastBinErr)
	}
	return kastBinPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if kastBinDir != "" {
		_ = os.RemoveAll(kastBinDir)
	}
	os.Exit(code)
}
