// Minimal mirrors of tree-sitter's private node and language records, as
// laid out by the runtime that github.com/smacker/go-tree-sitter vendors
// (tree-sitter 0.22, language ABI 13 and 14) on little-endian 64-bit
// targets. Only the fields the fast flattener reads are named; the others
// keep their place. TestFlattenLayout compiles these against the pinned
// module's own headers and fails when they drift apart.
#ifndef KAST_FLAT_LAYOUT_H
#define KAST_FLAT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

// A byte count with its row/column extent.
typedef struct {
	uint32_t bytes, row, column;
} kast_ts_length;

// A small leaf stored in the 8 bytes of the subtree itself. The first bit
// overlays the lowest bit of a heap pointer, which alignment keeps 0.
typedef struct {
	bool is_inline : 1;
	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool has_changes : 1;
	bool is_missing : 1;
	bool is_keyword : 1;
	uint8_t symbol;
	uint16_t parse_state;
	uint8_t padding_columns;
	uint8_t padding_rows : 4;
	uint8_t lookahead_bytes : 4;
	uint8_t padding_bytes;
	uint8_t size_bytes;
} kast_ts_inline;

// A heap subtree. Its child_count children are stored just before it.
typedef struct {
	uint32_t ref_count;
	kast_ts_length padding, size;
	uint32_t lookahead_bytes;
	uint32_t error_cost;
	uint32_t child_count;
	uint16_t symbol;
	uint16_t parse_state;
	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool fragile_left : 1;
	bool fragile_right : 1;
	bool has_changes : 1;
	bool has_external_tokens : 1;
	bool has_external_scanner_state_change : 1;
	bool depends_on_column : 1;
	bool is_missing : 1;
	bool is_keyword : 1;
	// The rest is a union in tree-sitter; these members hold when
	// child_count > 0. The union is 8-byte aligned, which puts it at the
	// same offset as this 4-byte aligned struct.
	uint32_t visible_child_count;
	uint32_t named_child_count;
	uint32_t visible_descendant_count;
	int32_t dynamic_precedence;
	uint16_t repeat_depth;
	uint16_t production_id;
} kast_ts_heap;

typedef union {
	kast_ts_inline data;
	const kast_ts_heap *ptr;
} kast_ts_subtree;

typedef struct kast_ts_language kast_ts_language;

// The head of TSTree.
typedef struct {
	kast_ts_subtree root;
	const kast_ts_language *language;
} kast_ts_tree;

typedef struct {
	uint16_t field_id;
	uint8_t child_index;
	bool inherited;
} kast_ts_field_entry;

typedef struct {
	uint16_t index, length;
} kast_ts_field_slice;

typedef struct {
	bool visible, named, supertype;
} kast_ts_symbol_metadata;

// The head of TSLanguage, up to the alias sequences.
struct kast_ts_language {
	uint32_t version;
	uint32_t symbol_count;
	uint32_t alias_count;
	uint32_t token_count;
	uint32_t external_token_count;
	uint32_t state_count;
	uint32_t large_state_count;
	uint32_t production_id_count;
	uint32_t field_count;
	uint16_t max_alias_sequence_length;
	const void *parse_table;
	const void *small_parse_table;
	const void *small_parse_table_map;
	const void *parse_actions;
	const void *symbol_names;
	const void *field_names;
	const kast_ts_field_slice *field_map_slices;
	const kast_ts_field_entry *field_map_entries;
	const kast_ts_symbol_metadata *symbol_metadata;
	const uint16_t *public_symbol_map;
	const uint16_t *alias_map;
	const uint16_t *alias_sequences;
};

// Symbols the runtime reserves: ERROR and its hidden repetition.
enum { KAST_TS_SYM_ERROR = 0xFFFF, KAST_TS_SYM_ERROR_REPEAT = 0xFFFE };

#endif
