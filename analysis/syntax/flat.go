package syntax

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "flat.h"

static uint32_t kast_count(const TSTree *tree) {
	return ts_node_descendant_count(ts_tree_root_node(tree));
}

// kast_flatten writes the tree's nodes in preorder, linked by parent and
// next-sibling indexes, so that Go can walk them without a cgo call per node.
// It returns the number of nodes written, or 0 when out is too small or
// memory runs out; with prefix set, it stops after cap nodes and returns
// cap, leaving links to nodes past them unset.
static uint32_t kast_flatten(const TSTree *tree, kast_node *out, uint32_t cap, bool prefix) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
	uint32_t depth_cap = 64, depth = 0, n = 0;
	// last[d] is the index of the last node emitted at depth d, or UINT32_MAX.
	uint32_t *last = malloc(depth_cap * sizeof *last);
	if (!last) {
		ts_tree_cursor_delete(&c);
		return 0;
	}
	last[0] = UINT32_MAX;
	for (;;) {
		if (n == cap) {
			if (!prefix) n = 0;
			break;
		}
		TSNode node = ts_tree_cursor_current_node(&c);
		kast_node *k = &out[n];
		k->start = ts_node_start_byte(node);
		k->end = ts_node_end_byte(node);
		k->symbol = ts_node_symbol(node);
		k->field = ts_tree_cursor_current_field_id(&c);
		k->flags = (ts_node_is_named(node) ? KAST_NAMED : 0) |
			(ts_node_is_missing(node) ? KAST_MISSING : 0) |
			(ts_node_has_error(node) ? KAST_HAS_ERROR : 0);
		k->next = 0;
		k->children = 0;
		k->parent = 0;
		if (depth > 0) {
			uint32_t prev = last[depth];
			k->parent = prev == UINT32_MAX ? n - 1 : out[prev].parent;
			if (prev != UINT32_MAX) out[prev].next = n;
			out[k->parent].children++;
		}
		last[depth] = n;
		n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (++depth == depth_cap) {
				depth_cap *= 2;
				uint32_t *grown = realloc(last, depth_cap * sizeof *last);
				if (!grown) {
					n = 0;
					break;
				}
				last = grown;
			}
			last[depth] = UINT32_MAX;
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
			depth--;
		}
	}
done:
	free(last);
	ts_tree_cursor_delete(&c);
	return n;
}

static void kast_trim(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static void kast_edit(TSTree *tree, uint32_t start, uint32_t old_end, uint32_t new_end,
		uint32_t start_row, uint32_t start_col, uint32_t old_row, uint32_t old_col,
		uint32_t new_row, uint32_t new_col) {
	TSInputEdit e = {start, old_end, new_end, {start_row, start_col}, {old_row, old_col}, {new_row, new_col}};
	ts_tree_edit(tree, &e);
}
*/
import "C"

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// flatNode mirrors kast_node.
type flatNode = C.kast_node

const (
	flagNamed    = C.KAST_NAMED
	flagMissing  = C.KAST_MISSING
	flagHasError = C.KAST_HAS_ERROR
)

// cTree returns the C tree behind the binding's Tree, for the tests that
// compare our trees with the binding's. The binding keeps it unexported:
// Tree's first field is *BaseTree, whose first field is the *C.TSTree.
// TestLanguageMirror guards this layout.
func cTree(t *sitter.Tree) *C.TSTree {
	base := *(*unsafe.Pointer)(unsafe.Pointer(t))
	return *(**C.TSTree)(base)
}

// treeLanguage returns the grammar a tree was parsed with.
func treeLanguage(ct *C.TSTree) *C.TSLanguage { return C.ts_tree_language(ct) }

var errFlatten = errors.New("syntax: flattening the tree failed")

// flatten copies the tree's nodes into Go memory in one cgo call.
func flatten(ct *C.TSTree) ([]flatNode, error) {
	count := C.kast_count(ct)
	var nodes []flatNode
	if p, ok := nodePool.Get().(*[]flatNode); ok && cap(*p) >= int(count) {
		nodes = (*p)[:count]
	} else {
		nodes = make([]flatNode, count)
	}
	if count == 0 {
		return nil, errFlatten
	}
	if fastFlatten.Load() && flattenChecked(ct, nodes) {
		return nodes, nil
	}
	if !flattenCursor(ct, nodes) {
		return nil, errFlatten
	}
	return nodes, nil
}

// flattenCursor fills nodes, sized by kast_count, with tree-sitter's cursor.
func flattenCursor(ct *C.TSTree, nodes []flatNode) bool {
	return C.kast_flatten(ct, &nodes[0], C.uint32_t(len(nodes)), false) == C.uint32_t(len(nodes))
}

// flattenFast fills nodes, sized by kast_count, by reading tree-sitter's
// node records directly (flat_fast.c): about three times as fast as the
// cursor, which re-derives visibility, aliases, positions and fields at
// every step. It reports
// false, leaving nodes in any state, when the tree fails the sanity checks or
// the walk does not produce exactly len(nodes) nodes.
func flattenFast(ct *C.TSTree, nodes []flatNode) bool {
	if !C.kast_syntax_fast_sane(ct) {
		return false
	}
	n := int(C.kast_syntax_flatten_fast(ct, &nodes[0], C.uint32_t(len(nodes))))
	if flattenHook != nil {
		n = flattenHook(nodes, n)
	}
	return n == len(nodes)
}

// flattenWith flattens t with the fast walk or the cursor alone, into buf
// when it is large enough: for tests and benchmarks.
func flattenWith(ct *C.TSTree, buf []flatNode, fast bool) ([]flatNode, bool) {
	count := int(C.kast_count(ct))
	if count == 0 {
		return nil, false
	}
	nodes := buf[:0]
	if cap(nodes) < count {
		nodes = make([]flatNode, count)
	}
	nodes = nodes[:count]
	if fast {
		return nodes, flattenFast(ct, nodes)
	}
	return nodes, flattenCursor(ct, nodes)
}

// fastFlatten is the process-wide switch for flattenFast. It starts on where
// the mirrored layouts apply (little-endian 64-bit) and a self-check turns it
// off for good on any disagreement with the cursor.
var fastFlatten atomic.Bool

// fastPlatform reports whether flat_fast.c was built with the fast walk.
var fastPlatform = bool(C.kast_syntax_fast_platform())

func init() { fastFlatten.Store(fastPlatform) }

// checkNodes is how many nodes of a language the self-check compares with
// the cursor before flattenFast alone flattens that language's trees. The
// check runs lazily on the first real trees of each grammar rather than on
// embedded samples at init: it covers whatever grammars callers register and
// costs nothing for grammars never used. It compares at most the first
// checkNodes nodes of a tree, so a huge first file (a cold index takes the
// largest first) costs no more than a small one. Tests compare the walks far
// more widely; this check is against a runtime whose layouts differ from
// those flat_layout.h mirrors.
const checkNodes = 1 << 12

// langChecks maps a TSLanguage address to the *atomic.Int64 count of its
// nodes compared so far.
var langChecks sync.Map

// flattenHook, set by tests only, may alter flattenFast's nodes and count.
var flattenHook func(nodes []flatNode, n int) int

// flattenChecked fills nodes with flattenFast and, while the tree's language
// is under self-check, compares a prefix of them with the cursor's. It
// reports false when the cursor must (or, after a difference, must from now
// on) flatten the tree.
func flattenChecked(ct *C.TSTree, nodes []flatNode) bool {
	lang := uintptr(unsafe.Pointer(treeLanguage(ct)))
	v, ok := langChecks.Load(lang)
	if !ok {
		v, _ = langChecks.LoadOrStore(lang, new(atomic.Int64))
	}
	compared := v.(*atomic.Int64)
	if compared.Load() >= checkNodes {
		// Sanity fails or a node count differs: the cursor redoes this tree.
		return flattenFast(ct, nodes)
	}
	want := make([]flatNode, min(len(nodes), checkNodes))
	if C.kast_flatten(ct, &want[0], C.uint32_t(len(want)), true) != C.uint32_t(len(want)) {
		return false
	}
	if !flattenFast(ct, nodes) || !samePrefix(nodes, want) {
		fastFlatten.Store(false)
		return false
	}
	compared.Add(int64(len(want)))
	return true
}

// samePrefix reports whether all agrees with prefix, the cursor's first
// nodes of the same tree. Links the cursor had not reached when it stopped,
// a next sibling or children past the prefix, are left out.
func samePrefix(all, prefix []flatNode) bool {
	if len(prefix) == len(all) {
		return slices.Equal(all, prefix)
	}
	for i, w := range prefix {
		g := all[i]
		if g.start != w.start || g.end != w.end || g.symbol != w.symbol || g.field != w.field ||
			g.flags != w.flags || g.parent != w.parent ||
			g.next != w.next && (w.next != 0 || int(g.next) < len(prefix)) ||
			g.children < w.children {
			return false
		}
	}
	return true
}

// bigTree is the node count above which a tree is treated as huge: closing
// huge trees hands the C heap's free pages back to the OS now and then (see
// trimEvery; glibc keeps freed memory in its arenas, so the few huge
// generated files would otherwise pin their peak for the whole run), and
// their node arrays are not pooled.
const bigTree = 1 << 16

// The C heap is trimmed when a small tree is closed after huge ones, and
// during a long run of huge trees once per trimEvery of their nodes.
// Trimming after every huge tree made the parses that followed fault their
// working set back in, and the peak RSS is set while huge trees are parsed
// anyway: this policy takes a cold index of the standard library from 240k
// page faults to 180-190k, at the same peak RSS (430-445 MB).
const trimEvery = 1 << 22

var closedBigNodes atomic.Int64

// nodePool recycles node arrays of closed trees: the next parse overwrites
// every node, so reuse saves zeroing a fresh array and the garbage.
var nodePool sync.Pool // of *[]flatNode

// release frees the C tree of a closed Tree and recycles its node array,
// which nothing may use afterwards.
func release(t *C.TSTree, nodes []flatNode) {
	C.ts_tree_delete(t)
	switch {
	case len(nodes) > bigTree:
		if closedBigNodes.Add(int64(len(nodes))) >= trimEvery && closedBigNodes.Swap(0) > 0 {
			C.kast_trim()
		}
	case nodes != nil:
		// The huge trees are over, for a while at least: a cold index takes
		// the largest files first.
		if closedBigNodes.Load() > 0 && closedBigNodes.Swap(0) > 0 {
			C.kast_trim()
		}
		nodePool.Put(&nodes)
	}
}

// edit applies an edit with correct points; the binding's Tree.Edit passes
// the old end point as the new one.
func edit(t *C.TSTree, e Edit) {
	C.kast_edit(t, C.uint32_t(e.Start), C.uint32_t(e.OldEnd), C.uint32_t(e.NewEnd),
		C.uint32_t(e.StartPoint.Line), C.uint32_t(e.StartPoint.Col),
		C.uint32_t(e.OldEndPoint.Line), C.uint32_t(e.OldEndPoint.Col),
		C.uint32_t(e.NewEndPoint.Line), C.uint32_t(e.NewEndPoint.Col))
}
