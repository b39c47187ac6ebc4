package libraries

import (
	"archive/zip"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// A -sources.jar is extracted once into the shared sources folder, its
// Java and Kotlin files only, into a temporary folder renamed into place:
// a folder with the marker is whole, and processes racing to extract the
// same jar both end with one copy. The archive is untrusted: an entry
// naming a path outside it rejects the whole jar, and sizes and entry
// counts are bounded, whatever its headers claim.

const (
	extractedMarker = ".kast-extracted"
	maxJarEntries   = 100_000
	maxJarTotal     = 512 << 20 // bytes extracted from one jar
	maxJarFile      = 8 << 20   // a larger source file is left out
)

var errTooLarge = errors.New("too large")

// extractSources extracts jar's Java and Kotlin sources into dest unless a
// whole copy is there already, and returns dest.
func extractSources(jar, dest string) (string, error) {
	return extractArchive(jar, dest, jvmSource)
}

// extractArchive extracts the entries of jar that keep accepts.
func extractArchive(jar, dest string, keep func(name string) bool) (string, error) {
	if fileExists(filepath.Join(dest, extractedMarker)) {
		return dest, nil
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return "", fmt.Errorf("corrupt jar %s: %w", jar, err)
	}
	defer zr.Close()
	if len(zr.File) > maxJarEntries {
		return "", fmt.Errorf("%s has %d entries, more than %d", jar, len(zr.File), maxJarEntries)
	}
	for _, f := range zr.File {
		if !safeEntry(f.Name) {
			return "", fmt.Errorf("unsafe jar %s: entry %q names a path outside it", jar, f.Name)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	removeStale(dest + ".tmp-*")
	tmp := dest + ".tmp-" + randomSuffix()
	defer os.RemoveAll(tmp) // gone after the rename; left over only on failure
	total := int64(0)
	for _, f := range zr.File {
		if !keep(f.Name) || f.FileInfo().IsDir() || f.UncompressedSize64 > maxJarFile {
			continue
		}
		n, err := extractEntry(f, filepath.Join(tmp, filepath.FromSlash(f.Name)))
		if err != nil {
			return "", fmt.Errorf("corrupt jar %s: %s: %w", jar, f.Name, err)
		}
		if total += n; total > maxJarTotal {
			return "", fmt.Errorf("%s extracts to more than %d MB", jar, maxJarTotal>>20)
		}
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, extractedMarker), []byte(jar+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dest); err != nil {
		// Another process extracted it first, or an unfinished copy of
		// an earlier run is in the way: replace that one.
		if fileExists(filepath.Join(dest, extractedMarker)) {
			return dest, nil
		}
		if rmErr := os.RemoveAll(dest); rmErr != nil {
			return "", err
		}
		if err := os.Rename(tmp, dest); err != nil {
			return "", err
		}
	}
	return dest, nil
}

// safeEntry reports whether an archive entry's name stays inside the
// folder it is extracted into.
func safeEntry(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

// extractEntry writes one entry, reading no more than maxJarFile bytes
// whatever its header says, and returns how many it wrote.
func extractEntry(f *zip.File, to string) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, maxJarFile+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxJarFile {
		err = errTooLarge
	}
	return n, err
}

// staleAfter is how old a temporary extraction folder is before it counts
// as left by a process that died: a younger one may be another's, under way.
const staleAfter = time.Hour

// removeStale removes the temporary extraction folders matching pattern
// that processes which died mid-extraction left.
func removeStale(pattern string) {
	left, _ := filepath.Glob(pattern)
	for _, p := range left {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.RemoveAll(p)
		}
	}
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// jvmSource reports whether an archive entry or library file is Java or
// Kotlin source (META-INF holds none).
func jvmSource(name string) bool {
	name = filepath.ToSlash(name)
	if strings.HasPrefix(name, "META-INF/") || strings.Contains(name, "/META-INF/") {
		return false
	}
	return strings.HasSuffix(name, ".java") || strings.HasSuffix(name, ".kt")
}
