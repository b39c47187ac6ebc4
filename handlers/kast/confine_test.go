package kast

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hostile client's probes of the confinement rule through the real daemon:
// a folder and a file linked outside the workspace, a file linked inside,
// ".." after a link, paths outside and relative ones.

// plantLinks adds the links to the fixture workspace and returns the folder
// outside it, which holds Secret.kt.
func plantLinks(t *testing.T, e *kastEnv) (outside string) {
	t.Helper()
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "Secret.kt"), []byte("package secret\n\nfun secret(): String = \"s3cr3t\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"src/main/kotlin/sample/out":      outside,                             // a folder link leaving the workspace
		"leak.kt":                         filepath.Join(outside, "Secret.kt"), // a file link leaving it
		"src/main/kotlin/sample/Alias.kt": "Use.kt",                            // a file link staying inside
	} {
		if err := os.Symlink(target, e.path(link)); err != nil {
			t.Fatal(err)
		}
	}
	return outside
}

// refused sends a request that must fail with VALIDATION_ERROR whose
// details name the rule (and the link, when given). It reports and goes on,
// so that every probe a build lets through is listed.
func (e *kastEnv) refused(method string, params any, rule, link string) {
	e.t.Helper()
	res, rpcErr := e.call(method, params)
	if rpcErr == nil {
		e.t.Errorf("%s: succeeded with %s, want VALIDATION_ERROR by rule %s", method, res, rule)
		return
	}
	var data struct {
		Details map[string]string `json:"details"`
	}
	_ = json.Unmarshal(rpcErr.Data, &data)
	if rpcErr.Code != -32400 || rpcErr.DataCode() != "VALIDATION_ERROR" || data.Details["rule"] != rule || (link != "" && data.Details["link"] != link) {
		e.t.Errorf("%s: %v, details %v; want VALIDATION_ERROR by rule %s, link %q", method, rpcErr, data.Details, rule, link)
	}
}

// unchanged fails the test when a file outside was written, created or
// removed.
func unchanged(t *testing.T, outside string, want map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("the folder outside now holds %d entries, want %d", len(entries), len(want))
	}
	for name, text := range want {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != text {
			t.Errorf("%s outside the workspace: %q, %v; want it untouched", name, b, err)
		}
	}
}

func TestKastConfinedEdits(t *testing.T) {
	e := newKastEnv(t, "kotlin.txtar")
	outside := plantLinks(t, e)
	secret := filepath.Join(outside, "Secret.kt")
	secretText, _ := os.ReadFile(secret)
	secretHash := hashOf(t, secret)
	outLink := e.path("src/main/kotlin/sample/out")
	viaOut := filepath.Join(outLink, "Secret.kt")
	leak := e.path("leak.kt")

	edits := func(path, hash string) map[string]any {
		return map[string]any{
			"edits":      []any{map[string]any{"filePath": path, "startOffset": 0, "endOffset": 7, "newText": "// pwned"}},
			"fileHashes": []any{map[string]any{"filePath": path, "hash": hash}}}
	}
	ops := func(op map[string]any) map[string]any {
		return map[string]any{"edits": []any{}, "fileHashes": []any{}, "fileOperations": []any{op}}
	}
	// Text edits through a folder link and through a file link, with the
	// right hashes: the rule refuses, not the conflict check.
	e.refused("raw/apply-edits", edits(viaOut, secretHash), "SYMLINK_ESCAPE", outLink)
	e.refused("raw/apply-edits", edits(leak, secretHash), "SYMLINK_ESCAPE", leak)
	if fi, err := os.Lstat(leak); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link leaving the workspace was replaced: %v %v", fi, err)
	}
	// File operations through the folder link.
	e.refused("raw/apply-edits", ops(map[string]any{"type": "CREATE_FILE", "filePath": filepath.Join(outLink, "New.kt"), "content": "package x\n"}),
		"SYMLINK_ESCAPE", outLink)
	e.refused("raw/apply-edits", ops(map[string]any{"type": "DELETE_FILE", "filePath": viaOut, "expectedHash": secretHash}), "SYMLINK_ESCAPE", outLink)
	e.refused("raw/apply-edits", ops(map[string]any{"type": "DELETE_FILE", "filePath": leak, "expectedHash": secretHash}), "SYMLINK_ESCAPE", leak)
	// ".." after a link: the kernel would leave the workspace, a lexical
	// clean would not; refused rather than guessed.
	e.refused("raw/apply-edits", ops(map[string]any{"type": "CREATE_FILE", "filePath": outLink + "/../Dotdot.kt", "content": "package x\n"}),
		"DOTDOT_AFTER_LINK", outLink)
	if _, err := os.Stat(e.path("src/main/kotlin/sample/Dotdot.kt")); err == nil {
		t.Errorf("a path with .. after a link created a file")
	}
	// Plain paths outside and relative ones.
	e.refused("raw/apply-edits", edits(secret, secretHash), "OUTSIDE_WORKSPACE", "")
	e.refused("raw/apply-edits", edits("src/main/kotlin/sample/Use.kt", hashOf(t, e.path("src/main/kotlin/sample/Use.kt"))), "NOT_ABSOLUTE", "")
	// Reads and reindexing through the links.
	e.refused("raw/resolve", map[string]any{"position": map[string]any{"filePath": viaOut, "offset": 20}}, "SYMLINK_ESCAPE", outLink)
	e.refused("raw/workspace-refresh", map[string]any{"filePaths": []string{viaOut}}, "SYMLINK_ESCAPE", outLink)
	e.refused("raw/file-outline", map[string]any{"filePath": leak}, "SYMLINK_ESCAPE", leak)
	unchanged(t, outside, map[string]string{"Secret.kt": string(secretText)})
}

func TestKastConfinedWriteAndValidate(t *testing.T) {
	e := newKastEnv(t, "kotlin.txtar")
	outside := plantLinks(t, e)
	secret := filepath.Join(outside, "Secret.kt")
	secretText, _ := os.ReadFile(secret)
	outLink := e.path("src/main/kotlin/sample/out")
	target := e.path("src/main/kotlin/sample/Copied.kt")

	// contentFile outside the workspace would copy any readable file in.
	e.refused("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": target, "contentFile": secret},
		"OUTSIDE_WORKSPACE", "")
	e.refused("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": target,
		"contentFile": filepath.Join(outLink, "Secret.kt")}, "SYMLINK_ESCAPE", outLink)
	if _, err := os.Stat(target); err == nil {
		t.Errorf("write-and-validate created %s from a file outside", target)
	}
	// Writing through the folder link.
	e.refused("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": filepath.Join(outLink, "New.kt"),
		"content": "package x\n"}, "SYMLINK_ESCAPE", outLink)
	e.refused("symbol/write-and-validate", map[string]any{"type": "INSERT_AT_OFFSET_REQUEST", "filePath": filepath.Join(outLink, "Secret.kt"),
		"offset": 0, "content": "// pwned\n"}, "SYMLINK_ESCAPE", outLink)
	unchanged(t, outside, map[string]string{"Secret.kt": string(secretText)})

	// A contentFile inside the workspace is still read.
	src := e.path("content.txt")
	if err := os.WriteFile(src, []byte("package sample\n\nfun copied(): String = \"c\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	e.ok("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": target, "contentFile": src}, &res)
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "fun copied") || res["type"] != "WRITE_AND_VALIDATE_SUCCESS" {
		t.Errorf("contentFile inside: %v, wrote %q", res, b)
	}
}

// A link that stays inside is edited through: its target changes and it
// stays a link.
func TestKastEditThroughLinkInside(t *testing.T) {
	e := newKastEnv(t, "kotlin.txtar")
	plantLinks(t, e)
	alias, use := e.path("src/main/kotlin/sample/Alias.kt"), e.path("src/main/kotlin/sample/Use.kt")
	var res applyEditsResult
	e.ok("raw/apply-edits", map[string]any{
		"edits":      []any{map[string]any{"filePath": alias, "startOffset": 0, "endOffset": 0, "newText": "// edited\n"}},
		"fileHashes": []any{map[string]any{"filePath": alias, "hash": hashOf(t, use)}}}, &res)
	if fi, err := os.Lstat(alias); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a regular file: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(use); !strings.HasPrefix(string(b), "// edited\npackage sample") {
		t.Errorf("the link's target was not edited: %q", b)
	}
	if len(res.AffectedFiles) != 1 || res.AffectedFiles[0] != use {
		t.Errorf("affectedFiles %v, want the real file %s", res.AffectedFiles, use)
	}
	// Two names of one file in one plan.
	e.refused("raw/apply-edits", map[string]any{"edits": []any{},
		"fileHashes":     []any{map[string]any{"filePath": alias, "hash": "x"}, map[string]any{"filePath": use, "hash": "x"}},
		"fileOperations": []any{map[string]any{"type": "CREATE_FILE", "filePath": e.path("Other.kt"), "content": ""}}}, "", "")
	// Deleting the link removes the link, not its target.
	e.ok("raw/apply-edits", map[string]any{"edits": []any{}, "fileHashes": []any{},
		"fileOperations": []any{map[string]any{"type": "DELETE_FILE", "filePath": alias, "expectedHash": hashOf(t, use)}}}, nil)
	if _, err := os.Lstat(alias); err == nil {
		t.Errorf("the link survived its deletion")
	}
	if _, err := os.Stat(use); err != nil {
		t.Errorf("deleting the link deleted its target: %v", err)
	}
}
