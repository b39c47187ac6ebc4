package complete

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/workspace"
)

// countingSnapshot counts the files whose facts a completion reads.
type countingSnapshot struct {
	Snapshot
	mu    sync.Mutex
	files map[string]bool
}

func (s *countingSnapshot) File(path string) *analysis.FileFacts {
	s.mu.Lock()
	s.files[path] = true
	s.mu.Unlock()
	return s.Snapshot.File(path)
}

// A Python class's members are in its body: completing after "t." reads
// the class's file and its bases', not every Python file there is (a
// Python file has no package, and the search for members declared outside
// their type read all of them, libraries included, for every class
// visited: most of a member completion's time on a real project).
func TestPythonMembersReadTheClassFilesOnly(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"pyproject.toml": "[project]\nname = \"app\"\n",
		"shapes.py":      "class Base:\n    def area(self): ...\n\n\nclass Square(Base):\n    def side(self): ...\n",
		"app.py":         "from shapes import Square\n\nt = Square()\nt.\n",
	}
	for i := range 20 {
		files[fmt.Sprintf("other%d.py", i)] = fmt.Sprintf("class Other%d:\n    def side(self): ...\n", i)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, workspace.Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	s := &countingSnapshot{Snapshot: sess.Snapshot(nil), files: map[string]bool{}}
	app := filepath.Join(root, "app.py")
	text := []byte(files["app.py"])
	res := Complete(s, app, strings.Index(string(text), "t.\n")+2, text)
	var labels []string
	for _, it := range res.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "side") || !slices.Contains(labels, "area") {
		t.Errorf("members %v", labels)
	}
	for p := range s.files {
		if strings.HasPrefix(filepath.Base(p), "other") {
			t.Errorf("read %s, which declares nothing of Square", filepath.Base(p))
		}
	}
}
