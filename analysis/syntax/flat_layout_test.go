package syntax

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// layoutCheck is a C program that includes tree-sitter's private headers
// from the pinned go-tree-sitter module beside flat_layout.h: it fails to
// compile when an offset or size the fast walk relies on differs, and fails
// at run time when a bit field lands on a different bit.
const layoutCheck = `
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "subtree.h"
#include "tree.h"
#include "language.h"
#include "flat_layout.h"

#define SAME(real, rf, mine, mf) _Static_assert(offsetof(real, rf) == offsetof(mine, mf) && \
	sizeof(((real *)0)->rf) == sizeof(((mine *)0)->mf), #real "." #rf)

SAME(Length, bytes, kast_ts_length, bytes);
_Static_assert(sizeof(Length) == sizeof(kast_ts_length), "Length");
_Static_assert(sizeof(Subtree) == sizeof(kast_ts_subtree), "Subtree");
SAME(SubtreeInlineData, symbol, kast_ts_inline, symbol);
SAME(SubtreeInlineData, padding_bytes, kast_ts_inline, padding_bytes);
SAME(SubtreeInlineData, size_bytes, kast_ts_inline, size_bytes);
SAME(SubtreeHeapData, padding, kast_ts_heap, padding);
SAME(SubtreeHeapData, size, kast_ts_heap, size);
SAME(SubtreeHeapData, error_cost, kast_ts_heap, error_cost);
SAME(SubtreeHeapData, child_count, kast_ts_heap, child_count);
SAME(SubtreeHeapData, symbol, kast_ts_heap, symbol);
SAME(SubtreeHeapData, visible_child_count, kast_ts_heap, visible_child_count);
SAME(SubtreeHeapData, named_child_count, kast_ts_heap, named_child_count);
SAME(SubtreeHeapData, visible_descendant_count, kast_ts_heap, visible_descendant_count);
SAME(SubtreeHeapData, production_id, kast_ts_heap, production_id);
SAME(TSTree, root, kast_ts_tree, root);
SAME(TSTree, language, kast_ts_tree, language);
SAME(TSLanguage, version, kast_ts_language, version);
SAME(TSLanguage, symbol_count, kast_ts_language, symbol_count);
SAME(TSLanguage, alias_count, kast_ts_language, alias_count);
SAME(TSLanguage, production_id_count, kast_ts_language, production_id_count);
SAME(TSLanguage, field_count, kast_ts_language, field_count);
SAME(TSLanguage, max_alias_sequence_length, kast_ts_language, max_alias_sequence_length);
SAME(TSLanguage, field_map_slices, kast_ts_language, field_map_slices);
SAME(TSLanguage, field_map_entries, kast_ts_language, field_map_entries);
SAME(TSLanguage, symbol_metadata, kast_ts_language, symbol_metadata);
SAME(TSLanguage, public_symbol_map, kast_ts_language, public_symbol_map);
SAME(TSLanguage, alias_sequences, kast_ts_language, alias_sequences);
SAME(TSFieldMapEntry, field_id, kast_ts_field_entry, field_id);
SAME(TSFieldMapEntry, child_index, kast_ts_field_entry, child_index);
SAME(TSFieldMapEntry, inherited, kast_ts_field_entry, inherited);
_Static_assert(sizeof(TSFieldMapEntry) == sizeof(kast_ts_field_entry), "TSFieldMapEntry");
SAME(TSFieldMapSlice, index, kast_ts_field_slice, index);
SAME(TSFieldMapSlice, length, kast_ts_field_slice, length);
_Static_assert(sizeof(TSFieldMapSlice) == sizeof(kast_ts_field_slice), "TSFieldMapSlice");
SAME(TSSymbolMetadata, named, kast_ts_symbol_metadata, named);
_Static_assert(sizeof(TSSymbolMetadata) == sizeof(kast_ts_symbol_metadata), "TSSymbolMetadata");
_Static_assert(ts_builtin_sym_error == KAST_TS_SYM_ERROR, "error symbol");
_Static_assert(ts_builtin_sym_error_repeat == KAST_TS_SYM_ERROR_REPEAT, "error repeat symbol");

static int failed;

// Each bit set in the real record must read back from the same field, and
// from that one alone, in the mirror.
#define HEAP_FLAGS(m) (m.visible + m.named + m.extra + m.is_missing)
#define HEAP_BIT(f) do { \
	SubtreeHeapData r; kast_ts_heap m; \
	memset(&r, 0, sizeof r); r.f = 1; memcpy(&m, &r, sizeof m); \
	if (!m.f || HEAP_FLAGS(m) != 1) { printf("heap bit %s\n", #f); failed = 1; } \
} while (0)
#define INLINE_FLAGS(m) (m.data.is_inline + m.data.visible + m.data.named + m.data.extra + m.data.is_missing)
#define INLINE_BIT(f) do { \
	Subtree r; kast_ts_subtree m; \
	memset(&r, 0, sizeof r); r.data.f = 1; memcpy(&m, &r, sizeof m); \
	if (!m.data.f || INLINE_FLAGS(m) != 1) { printf("inline bit %s\n", #f); failed = 1; } \
} while (0)

int main(void) {
	HEAP_BIT(visible);
	HEAP_BIT(named);
	HEAP_BIT(extra);
	HEAP_BIT(is_missing);
	INLINE_BIT(is_inline);
	INLINE_BIT(visible);
	INLINE_BIT(named);
	INLINE_BIT(extra);
	INLINE_BIT(is_missing);
	// A heap pointer reads as not inline.
	SubtreeHeapData heap;
	Subtree r = {.ptr = &heap};
	kast_ts_subtree m;
	memcpy(&m, &r, sizeof m);
	if (m.data.is_inline || m.ptr != (const kast_ts_heap *)(const void *)&heap) {
		printf("heap pointer\n");
		failed = 1;
	}
	if (!failed) printf("ok\n");
	return failed;
}
`

// TestFlattenLayout checks flat_layout.h against the private headers of the
// tree-sitter runtime go.mod pins, when the go command and a C compiler are
// at hand: a dependency upgrade that moves a field fails here rather than
// at the self-check of a running server.
func TestFlattenLayout(t *testing.T) {
	if !fastPlatform {
		t.Skip("no fast walk on this platform")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/smacker/go-tree-sitter").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("go-tree-sitter's source is not at hand: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "subtree.h")); err != nil {
		t.Skipf("go-tree-sitter's runtime headers are not at hand: %v", err)
	}
	cc := "cc"
	if out, err := exec.Command("go", "env", "CC").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		cc = strings.Fields(string(out))[0]
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	src, bin := filepath.Join(tmp, "layout.c"), filepath.Join(tmp, "layout")
	if err := os.WriteFile(src, []byte(layoutCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	// The package directory comes last: its flat.h must not shadow anything.
	if out, err := exec.Command(cc, "-std=gnu11", "-I", dir, "-I", here, "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("flat_layout.h disagrees with %s:\n%s", dir, out)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("flat_layout.h's bit fields disagree with %s: %v\n%s", dir, err, out)
	}
}
