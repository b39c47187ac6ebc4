package checks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A toolchain's findings are cached by the tool and the content of every
// input it reads: the files asked about, the project's source files of the
// tool's language and its configuration files, unsaved contents, and the
// tool's own binary. Repeated diagnostics of unchanged files then cost a
// walk of the project with a stat per file (contents are hashed again only
// when a file's size or modification time changed), not a toolchain run.

// cacheEntries bounds the findings kept.
const cacheEntries = 128

// maxInputs is the project size above which findings are not cached: the
// walk would cost more than it saves.
const maxInputs = 20000

type findingsCache struct {
	mu      sync.Mutex
	entries map[string][]Diagnostic
	order   []string                // keys, oldest first
	hashes  map[string]contentStamp // path → its hash at a size and time
}

type contentStamp struct {
	size    int64
	modTime time.Time
	hash    string
}

var cache = &findingsCache{entries: map[string][]Diagnostic{}, hashes: map[string]contentStamp{}}

func (c *findingsCache) get(key string) ([]Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.entries[key]
	return slices.Clone(d), ok
}

func (c *findingsCache) put(key string, diags []Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok {
		c.order = append(c.order, key)
	}
	c.entries[key] = slices.Clone(diags)
	for len(c.order) > cacheEntries {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

// reset empties the cache (tests and benchmarks measure cold runs).
func (c *findingsCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.order, c.hashes = map[string][]Diagnostic{}, nil, map[string]contentStamp{}
}

var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// contentHash is a file's SHA-256, recomputed only when its size or time
// changed; "" for a file that cannot be read.
func (c *findingsCache) contentHash(path string, info fs.FileInfo) string {
	c.mu.Lock()
	st, ok := c.hashes[path]
	c.mu.Unlock()
	if ok && st.size == info.Size() && st.modTime.Equal(info.ModTime()) {
		return st.hash
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	// Without WriteTo, so that the buffer is used: io.Copy made one per
	// file, 40 MB in ten seconds of a cold start's first hashes.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf); err != nil {
		return ""
	}
	sum := hex.EncodeToString(h.Sum(nil))
	c.mu.Lock()
	c.hashes[path] = contentStamp{info.Size(), info.ModTime(), sum}
	c.mu.Unlock()
	return sum
}

// inputs of each tool: the extensions of the sources it reads and the
// names of its configuration files, and its binary.
var inputs = map[string]struct {
	exts, configs []string
	binary        string
	project       string // the file whose folder is the project's
}{
	sourceGo:      {[]string{".go"}, []string{"go.mod", "go.sum", "go.work", "go.work.sum"}, "go", "go.mod"},
	sourceTSC:     {[]string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"}, []string{"package-lock.json", "yarn.lock", "pnpm-lock.yaml"}, "tsc", "tsconfig.json"},
	sourcePyright: {[]string{".py", ".pyi"}, []string{"pyrightconfig.json", "pyproject.toml", "setup.cfg"}, "pyright", "pyproject.toml"},
	sourceKotlinc: {[]string{".kt", ".kts", ".java"}, []string{"build.gradle", "build.gradle.kts", "settings.gradle.kts", "pom.xml"}, "kotlinc", "settings.gradle.kts"},
}

// skippedDirs hold no input a toolchain's findings depend on, or too many
// (node_modules: its lock file stands for it).
var skippedDirs = map[string]bool{"node_modules": true, ".git": true, "build": true, "out": true, "target": true, "__pycache__": true, ".gradle": true}

// inputsKey is the cache key of a tool's run over files; false when the
// inputs cannot be listed within bounds, or ctx ends first (the first
// listing of a large project hashes every source: the standard library's
// took a core for seconds after the document that asked was closed).
func inputsKey(ctx context.Context, tool, root string, files []string, overlay map[string][]byte) (string, bool) {
	in, ok := inputs[tool]
	if !ok || len(files) == 0 {
		return "", false
	}
	project := nearest(root, filepath.Dir(files[0]), in.project)
	if project == "" {
		project = root
	}
	h := sha256.New()
	io.WriteString(h, tool+"\x00"+project+"\x00")
	if bin, err := exec.LookPath(in.binary); err == nil {
		if info, err := os.Stat(bin); err == nil {
			io.WriteString(h, bin+"\x00"+info.ModTime().String()+"\x00")
		}
	}
	for _, f := range slices.Sorted(slices.Values(files)) {
		io.WriteString(h, "file\x00"+f+"\x00")
	}
	n := 0
	err := filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil // an unreadable folder: no input of ours
		}
		if d.IsDir() {
			if p != project && (skippedDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !slices.Contains(in.configs, name) && !slices.Contains(in.exts, filepath.Ext(name)) {
			return nil
		}
		if n++; n > maxInputs {
			return fs.SkipAll
		}
		var sum string
		if text, ok := overlay[p]; ok {
			s := sha256.Sum256(text)
			sum = "overlay:" + hex.EncodeToString(s[:])
		} else if info, err := d.Info(); err == nil {
			sum = cache.contentHash(p, info)
		}
		io.WriteString(h, p+"\x00"+sum+"\x00")
		return nil
	})
	if err != nil || n > maxInputs {
		return "", false
	}
	for p, text := range overlay { // unsaved contents outside the walk
		if !strings.HasPrefix(p, project) {
			s := sha256.Sum256(text)
			io.WriteString(h, p+"\x00overlay:"+hex.EncodeToString(s[:])+"\x00")
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
