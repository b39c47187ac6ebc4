package resolve

// Which Go files build together: the platform a file's name restricts it
// to, its //go:build constraint, and the default platform (gopls's).

import (
	"go/build/constraint"
	"io"
	"os"
	"path"
	"strings"
	"sync"
)

// The platform Go files are resolved for when nothing says otherwise: the
// one gopls and the go command default to on most machines.
const (
	defaultGOOS   = "linux"
	defaultGOARCH = "amd64"
)

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true,
	"openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true,
	"arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true,
	"mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true,
	"riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true,
	"wasm": true,
}

// goFilePlatform is the GOOS and GOARCH a Go file's name restricts it to
// (name_GOOS_GOARCH.go, name_GOOS.go, name_GOARCH.go, with an optional
// _test), "" for either when the name does not restrict it.
func goFilePlatform(p string) (goos, goarch string) {
	name := strings.TrimSuffix(path.Base(p), ".go")
	name = strings.TrimSuffix(name, "_test")
	// The last two elements of the name split at "_", without splitting:
	// finish asks for every candidate.
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return "", "" // "linux.go" is not restricted
	}
	last := name[i+1:]
	if j := strings.LastIndexByte(name[:i], '_'); j >= 0 && knownArch[last] && knownOS[name[j+1:i]] {
		return name[j+1 : i], last
	}
	if knownOS[last] {
		return last, ""
	}
	if knownArch[last] {
		return "", last
	}
	return "", ""
}

// osMatches reports whether a file for GOOS want builds for GOOS goos:
// android builds linux files, illumos solaris ones and ios darwin ones.
func osMatches(want, goos string) bool {
	return want == "" || want == goos ||
		goos == "android" && want == "linux" || goos == "illumos" && want == "solaris" || goos == "ios" && want == "darwin"
}

// goBuildFit ranks a Go file by whether its name lets it build for the
// platform of the file a reference is in (the one that file's own name
// says, else linux/amd64): 1 when it does, 0 when it builds for another
// platform only. Files other than Go sources all rank 1.
func goBuildFit(from, candidate string) int {
	if !strings.HasSuffix(candidate, ".go") || from == candidate ||
		strings.LastIndexByte(candidate, '_') < strings.LastIndexByte(candidate, '/') {
		return 1 // the common case, a name without _: no platform
	}
	goos, goarch := goPlatform(from)
	cos, carch := goFilePlatform(candidate)
	if !osMatches(cos, goos) || carch != "" && goarch != "" && carch != goarch {
		return 0
	}
	return 1
}

// maxConstrained bounds the candidates whose build constraints finish reads:
// more are guesses among which the order hardly matters.
const maxConstrained = 64

// constraintKey is what whether a file's build constraint holds depends on.
type constraintKey struct{ path, goos, goarch string }

// constraintFits reports whether the //go:build line of the Go file
// candidate, if it has one, holds on the platform of the file from (see
// goBuildFit). The facts do not keep the line: it is read from the file's
// header, once per resolver, and a file that cannot be read fits.
func (r *Resolver) constraintFits(from, candidate string) bool {
	goos, goarch := goPlatform(from)
	key := constraintKey{candidate, goos, goarch}
	return memo(&r.mu, r.constraints, key, func(constraintKey) bool {
		expr := r.buildConstraint(candidate)
		if expr == nil {
			return true
		}
		return expr.Eval(func(tag string) bool { return tagHolds(tag, goos, goarch) })
	})
}

// headers caches the build constraints of Go files across resolvers, by
// path and content hash: a new resolver per snapshot must not read the
// same headers again.
var headers struct {
	sync.Mutex
	m map[[2]string]constraint.Expr
}

// maxHeaders bounds headers; past it the cache starts over.
const maxHeaders = 1 << 16

func (r *Resolver) buildConstraint(p string) constraint.Expr {
	hash := r.contentHash(p)
	if hash == "" {
		return nil
	}
	key := [2]string{p, hash}
	headers.Lock()
	expr, ok := headers.m[key]
	headers.Unlock()
	if ok {
		return expr
	}
	expr = readBuildConstraint(p)
	headers.Lock()
	if headers.m == nil || len(headers.m) >= maxHeaders {
		headers.m = map[[2]string]constraint.Expr{}
	}
	headers.m[key] = expr
	headers.Unlock()
	return expr
}

// ContentHasher is a Workspace that knows the content hash of a file it
// holds without its facts ("" when it does not hold the file).
type ContentHasher interface {
	ContentHash(path string) string
}

// contentHash is p's content hash, "" when the workspace does not hold p.
// Decoding a file's facts for it cost a completion in syscall, whose
// members are filtered by the build constraints of hundreds of files, 20
// of its 27 ms of CPU.
func (r *Resolver) contentHash(p string) string {
	r.mu.Lock()
	f, ok := r.files.get(p)
	r.mu.Unlock()
	if ok && f != nil {
		return f.Hash
	}
	if h, ok := r.ws.(ContentHasher); ok {
		if hash := h.ContentHash(p); hash != "" {
			return hash
		}
	}
	if f := r.file(p); f != nil {
		return f.Hash
	}
	return ""
}

// readBuildConstraint parses the //go:build line of a Go file's header,
// before its package clause; nil when there is none or it cannot be read.
func readBuildConstraint(p string) constraint.Expr {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, head)
	for line := range strings.Lines(string(head[:n])) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			break
		}
		if constraint.IsGoBuild(line) {
			if expr, err := constraint.Parse(line); err == nil {
				return expr
			}
			return nil
		}
	}
	return nil
}

// unixOS are the GOOS values the unix build tag holds for.
var unixOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "linux": true, "netbsd": true, "openbsd": true, "solaris": true,
}

// tagHolds reports whether a build tag holds for goos/goarch (goarch "" for
// any architecture) with the gc toolchain and cgo, as gopls builds by default.
func tagHolds(tag, goos, goarch string) bool {
	switch {
	case knownOS[tag]:
		return osMatches(tag, goos)
	case knownArch[tag]:
		return goarch == "" || tag == goarch
	case tag == "unix":
		return unixOS[goos]
	case tag == "gc", tag == "cgo":
		return true
	}
	return strings.HasPrefix(tag, "go1.")
}

// goPlatform is the GOOS and GOARCH a Go file is resolved for: those its
// name says, else linux/amd64 (goarch "" when the name says another GOOS
// only: a windows file builds for every windows architecture).
func goPlatform(from string) (goos, goarch string) {
	goos, goarch = defaultGOOS, defaultGOARCH
	if strings.HasSuffix(from, ".go") {
		fos, farch := goFilePlatform(from)
		if fos != "" {
			goos = fos
			if fos != defaultGOOS && farch == "" {
				goarch = ""
			}
		}
		if farch != "" {
			goarch = farch
		}
	}
	return goos, goarch
}

// BuildsWith reports whether a file may be compiled with the file from: for
// Go files, whether candidate's name lets it build for the platform from's
// name says (linux/amd64 when it says none); any two other files do.
func BuildsWith(from, candidate string) bool { return goBuildFit(from, candidate) == 1 }

// GoFileBuilds reports whether the Go file candidate is compiled with the
// file from: its name and its //go:build line (`ignore` never) both allow it.
func (r *Resolver) GoFileBuilds(from, candidate string) bool {
	return BuildsWith(from, candidate) && r.constraintFits(from, candidate)
}
