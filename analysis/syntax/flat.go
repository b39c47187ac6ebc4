package syntax

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

// Declarations from tree-sitter 0.22's api.h; the definitions are compiled
// into github.com/smacker/go-tree-sitter, which this package links with.
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct {
	uint32_t start_byte, old_end_byte, new_end_byte;
	TSPoint start_point, old_end_point, new_end_point;
} TSInputEdit;

TSNode ts_tree_root_node(const TSTree *self);
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
uint32_t ts_node_descendant_count(TSNode self);
uint16_t ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_has_error(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);

typedef struct {
	uint32_t start, end;
	uint32_t parent, next; // next is the next sibling's index, 0 for none
	uint32_t children;     // number of children; the first is at index + 1
	uint16_t symbol, field;
	uint8_t flags;
} kast_node;

enum { KAST_NAMED = 1, KAST_MISSING = 2, KAST_HAS_ERROR = 4 };

static uint32_t kast_count(const TSTree *tree) {
	return ts_node_descendant_count(ts_tree_root_node(tree));
}

// kast_flatten writes the tree's nodes in preorder, linked by parent and
// next-sibling indexes, so that Go can walk them without a cgo call per node.
// It returns the number of nodes written, or 0 when out is too small or
// memory runs out.
static uint32_t kast_flatten(const TSTree *tree, kast_node *out, uint32_t cap) {
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
			n = 0;
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
	"sync"
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

// cTree returns the C tree behind the binding's Tree. The binding keeps it
// unexported: Tree's first field is *BaseTree, whose first field is the
// *C.TSTree. TestFlattenMatchesBinding guards this layout.
func cTree(t *sitter.Tree) *C.TSTree {
	base := *(*unsafe.Pointer)(unsafe.Pointer(t))
	return *(**C.TSTree)(base)
}

var errFlatten = errors.New("syntax: flattening the tree failed")

// flatten copies the tree's nodes into Go memory in one cgo call.
func flatten(t *sitter.Tree) ([]flatNode, error) {
	ct := cTree(t)
	count := C.kast_count(ct)
	var nodes []flatNode
	if p, ok := nodePool.Get().(*[]flatNode); ok && cap(*p) >= int(count) {
		nodes = (*p)[:count]
	} else {
		nodes = make([]flatNode, count)
	}
	if count == 0 || C.kast_flatten(ct, &nodes[0], count) != count {
		return nil, errFlatten
	}
	return nodes, nil
}

// bigTree is the node count above which a tree is treated as huge: closing
// it hands the C heap's free pages back to the OS (glibc keeps freed memory
// in its arenas, so the few huge generated files would otherwise pin their
// peak for the whole run), and its node array is not pooled.
const bigTree = 1 << 16

// nodePool recycles node arrays of closed trees: the next parse overwrites
// every node, so reuse saves zeroing a fresh array and the garbage.
var nodePool sync.Pool // of *[]flatNode

// release frees the C tree of a closed Tree and recycles its node array,
// which nothing may use afterwards.
func release(t *sitter.Tree, nodes []flatNode) {
	t.Close()
	switch {
	case len(nodes) > bigTree:
		C.kast_trim()
	case nodes != nil:
		nodePool.Put(&nodes)
	}
}

// edit applies an edit with correct points; the binding's Tree.Edit passes
// the old end point as the new one.
func edit(t *sitter.Tree, e Edit) {
	C.kast_edit(cTree(t), C.uint32_t(e.Start), C.uint32_t(e.OldEnd), C.uint32_t(e.NewEnd),
		C.uint32_t(e.StartPoint.Line), C.uint32_t(e.StartPoint.Col),
		C.uint32_t(e.OldEndPoint.Line), C.uint32_t(e.OldEndPoint.Col),
		C.uint32_t(e.NewEndPoint.Line), C.uint32_t(e.NewEndPoint.Col))
}
