// The fast flattener: the same preorder walk as kast_flatten in flat.go, but
// over tree-sitter's own subtree records (flat_layout.h) rather than through
// TSTreeCursor, whose every step re-derives visibility, aliases and
// positions and whose field lookup rescans the cursor stack. It follows
// tree_cursor.c's rules: a child is visible when its subtree is or when the
// parent production aliases it; hidden children with visible descendants
// hand those up to the nearest visible ancestor; extras take no structural
// index, no alias and no field; a node with no field of its own inherits the
// field of the hidden ancestors it was reached through.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flat.h"
#include "flat_layout.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && UINTPTR_MAX == UINT64_MAX
#define KAST_FAST 1
// The offsets tree-sitter 0.22 has on LP64; TestFlattenLayout checks them
// against its headers.
_Static_assert(sizeof(kast_ts_subtree) == 8, "subtree");
_Static_assert(offsetof(kast_ts_heap, error_cost) == 32, "heap");
_Static_assert(offsetof(kast_ts_heap, visible_child_count) == 48, "heap");
_Static_assert(offsetof(kast_ts_heap, production_id) == 66, "heap");
_Static_assert(offsetof(kast_ts_tree, language) == 8, "tree");
_Static_assert(offsetof(kast_ts_language, parse_table) == 40, "language");
_Static_assert(offsetof(kast_ts_language, alias_sequences) == 128, "language");
#else
#define KAST_FAST 0
#endif

bool kast_syntax_fast_platform(void) { return KAST_FAST; }

#if KAST_FAST

static inline uint32_t padding_bytes(kast_ts_subtree s) {
	return s.data.is_inline ? s.data.padding_bytes : s.ptr->padding.bytes;
}

static inline uint32_t size_bytes(kast_ts_subtree s) {
	return s.data.is_inline ? s.data.size_bytes : s.ptr->size.bytes;
}

static inline bool subtree_missing(kast_ts_subtree s) {
	return s.data.is_inline ? s.data.is_missing : s.ptr->is_missing;
}

static inline bool subtree_has_error(kast_ts_subtree s) {
	return subtree_missing(s) || (!s.data.is_inline && s.ptr->error_cost > 0);
}

// A subtree whose children are being visited.
typedef struct {
	const kast_ts_subtree *children;
	const uint16_t *aliases; // the production's alias row, or NULL
	uint32_t alias_room;     // entries readable from aliases on
	const kast_ts_field_entry *fields, *fields_end;
	uint32_t count, next; // children, and the next one to visit
	uint32_t structural;  // structural index of the next non-extra child
	uint32_t position;    // where the next child starts, less its padding
	uint32_t parent;      // flat index of the visible node collecting the children
	uint32_t owner;       // stack index of that visible node's frame
	uint32_t last;        // visible frames: the last child emitted, or UINT32_MAX
	uint16_t field;       // hidden frames: the field their descendants inherit
	bool hidden;
} frame;

static bool frame_init(frame *f, const kast_ts_language *l, const kast_ts_heap *h, uint32_t position) {
	uint32_t pid = h->production_id;
	if (pid >= l->production_id_count) return false;
	f->children = (const kast_ts_subtree *)h - h->child_count;
	f->count = h->child_count;
	// The children's records are scattered over the heap: ask for the
	// first few now rather than miss the cache on each in turn.
	for (uint32_t i = 0; i < f->count && i < 16; i++) {
		if (!f->children[i].data.is_inline) __builtin_prefetch(f->children[i].ptr);
	}
	f->next = 0;
	f->structural = 0;
	f->position = position;
	f->aliases = NULL;
	f->alias_room = 0;
	if (pid != 0 && l->alias_sequences) {
		size_t row = (size_t)pid * l->max_alias_sequence_length;
		f->aliases = l->alias_sequences + row;
		f->alias_room = (uint32_t)((size_t)l->production_id_count * l->max_alias_sequence_length - row);
	}
	f->fields = f->fields_end = NULL;
	if (l->field_count != 0 && l->field_map_slices && l->field_map_entries) {
		kast_ts_field_slice slice = l->field_map_slices[pid];
		f->fields = l->field_map_entries + slice.index;
		f->fields_end = f->fields + slice.length;
	}
	return true;
}

// emit fills k but for its links; false when a symbol is out of the
// language's range.
static inline bool emit(kast_node *k, const kast_ts_language *l, uint32_t symbols,
		kast_ts_subtree s, uint16_t alias, uint32_t start, uint16_t field) {
	bool inl = s.data.is_inline;
	uint16_t symbol;
	bool named;
	if (alias != 0) {
		symbol = alias;
		if (alias == KAST_TS_SYM_ERROR) named = true;
		else if (alias < symbols) named = l->symbol_metadata[alias].named;
		else return false;
	} else {
		symbol = inl ? s.data.symbol : s.ptr->symbol;
		named = inl ? s.data.named : s.ptr->named;
	}
	if (symbol != KAST_TS_SYM_ERROR) {
		if (symbol >= symbols) return false;
		symbol = l->public_symbol_map[symbol];
	}
	bool missing = subtree_missing(s);
	k->start = start;
	k->end = start + size_bytes(s);
	k->symbol = symbol;
	k->field = field;
	k->flags = (named ? KAST_NAMED : 0) | (missing ? KAST_MISSING : 0) |
		(subtree_has_error(s) ? KAST_HAS_ERROR : 0);
	k->next = 0;
	k->children = 0;
	return true;
}

#endif

// kast_syntax_fast_sane compares what the mirrored layouts read from the
// tree's head, its language and its root with the public API, before the
// walk follows any pointer of theirs.
bool kast_syntax_fast_sane(const TSTree *t) {
#if KAST_FAST
	const kast_ts_tree *tree = (const kast_ts_tree *)t;
	const TSLanguage *lang = ts_tree_language(t);
	if (!lang || (const void *)tree->language != (const void *)lang) return false;
	const kast_ts_language *l = tree->language;
	uint32_t version = ts_language_version(lang);
	uint32_t symbols = l->symbol_count + l->alias_count;
	if (version != l->version || version < 13 || version > 14 ||
		ts_language_symbol_count(lang) != symbols || symbols >= KAST_TS_SYM_ERROR_REPEAT ||
		ts_language_field_count(lang) != l->field_count ||
		!l->symbol_metadata || !l->public_symbol_map) {
		return false;
	}
	TSNode root = ts_tree_root_node(t);
	kast_ts_subtree r = tree->root;
	if (root.id != (const void *)&tree->root) return false;
	bool inl = r.data.is_inline;
	uint16_t symbol = inl ? r.data.symbol : r.ptr->symbol;
	if (symbol != KAST_TS_SYM_ERROR) {
		if (symbol >= symbols) return false;
		symbol = l->public_symbol_map[symbol];
	}
	bool parent = !inl && r.ptr->child_count > 0;
	uint32_t start = padding_bytes(r);
	return ts_node_start_byte(root) == start && ts_node_end_byte(root) == start + size_bytes(r) &&
		ts_node_symbol(root) == symbol &&
		ts_node_is_named(root) == (inl ? r.data.named : r.ptr->named) &&
		ts_node_is_missing(root) == subtree_missing(r) &&
		ts_node_has_error(root) == subtree_has_error(r) &&
		ts_node_child_count(root) == (parent ? r.ptr->visible_child_count : 0) &&
		ts_node_named_child_count(root) == (parent ? r.ptr->named_child_count : 0) &&
		ts_node_descendant_count(root) == 1 + (parent ? r.ptr->visible_descendant_count : 0);
#else
	(void)t;
	return false;
#endif
}

// kast_syntax_flatten_fast writes what kast_flatten writes. It returns the
// number of nodes written, or 0 when out is too small, memory runs out or a
// record is out of its language's range. Callers check the tree with
// kast_syntax_fast_sane first.
uint32_t kast_syntax_flatten_fast(const TSTree *t, kast_node *out, uint32_t cap) {
#if KAST_FAST
	const kast_ts_tree *tree = (const kast_ts_tree *)t;
	const kast_ts_language *l = tree->language;
	uint32_t symbols = l->symbol_count + l->alias_count;
	kast_ts_subtree root = tree->root;
	if (cap == 0) return 0;
	uint32_t start = padding_bytes(root);
	if (!emit(&out[0], l, symbols, root, 0, start, 0)) return 0;
	out[0].parent = 0;
	if (root.data.is_inline || root.ptr->child_count == 0) return 1;

	// Most trees are shallow enough for the frames on the C stack.
	frame local[64], *stack = local;
	uint32_t depth_cap = 64, depth = 0, n = 1;
	if (!frame_init(&stack[0], l, root.ptr, start)) return 0;
	stack[0].parent = 0;
	stack[0].owner = 0;
	stack[0].last = UINT32_MAX;
	stack[0].field = 0;
	stack[0].hidden = false;
	depth = 1;
	while (depth > 0) {
		frame *f = &stack[depth - 1];
		if (f->next == f->count) {
			depth--;
			continue;
		}
		uint32_t i = f->next++;
		kast_ts_subtree c = f->children[i];
		bool inl = c.data.is_inline;
		if (i > 0) f->position += padding_bytes(c);
		uint32_t child_start = f->position;
		f->position += size_bytes(c);
		uint16_t alias = 0, field = 0;
		if (!(inl ? c.data.extra : c.ptr->extra)) {
			uint32_t s = f->structural++;
			if (f->aliases) {
				if (s >= f->alias_room) goto fail;
				alias = f->aliases[s];
			}
			for (const kast_ts_field_entry *e = f->fields; e < f->fields_end; e++) {
				if (!e->inherited && e->child_index == s) {
					field = e->field_id;
					break;
				}
			}
			if (field == 0 && f->hidden) field = f->field;
		}
		bool parent = !inl && c.ptr->child_count > 0;
		bool visible = alias != 0 || (inl ? c.data.visible : c.ptr->visible);
		if (!visible && !(parent && c.ptr->visible_child_count > 0)) continue;

		uint32_t frame_parent = f->parent, frame_owner = f->owner;
		if (visible) {
			if (n == cap) goto fail;
			kast_node *k = &out[n];
			if (!emit(k, l, symbols, c, alias, child_start, field)) goto fail;
			k->parent = frame_parent;
			frame *o = &stack[frame_owner];
			if (o->last != UINT32_MAX) out[o->last].next = n;
			o->last = n;
			out[frame_parent].children++;
			n++;
			if (!parent) continue;
		}
		if (depth == depth_cap) {
			frame *grown;
			if (stack == local) {
				grown = malloc(2 * depth_cap * sizeof *grown);
				if (grown) memcpy(grown, local, sizeof local);
			} else {
				grown = realloc(stack, 2 * depth_cap * sizeof *grown);
			}
			if (!grown) goto fail;
			stack = grown;
			depth_cap *= 2;
		}
		frame *g = &stack[depth];
		if (!frame_init(g, l, c.ptr, child_start)) goto fail;
		if (visible) {
			g->parent = n - 1;
			g->owner = depth;
			g->last = UINT32_MAX;
			g->field = 0;
			g->hidden = false;
		} else {
			g->parent = frame_parent;
			g->owner = frame_owner;
			g->last = UINT32_MAX;
			g->field = field;
			g->hidden = true;
		}
		depth++;
	}
	if (stack != local) free(stack);
	return n;
fail:
	if (stack != local) free(stack);
	return 0;
#else
	(void)t;
	(void)out;
	(void)cap;
	return 0;
#endif
}
