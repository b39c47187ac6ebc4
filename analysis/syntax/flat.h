// Shared by flat.go's cgo preamble and flat_fast.c.
#ifndef KAST_FLAT_H
#define KAST_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Declarations from tree-sitter 0.22's api.h; the definitions are compiled
// into github.com/smacker/go-tree-sitter, which this package links with.
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct {
	uint32_t start_byte, old_end_byte, new_end_byte;
	TSPoint start_point, old_end_point, new_end_point;
} TSInputEdit;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
const TSLanguage *ts_parser_language(const TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
void ts_parser_reset(TSParser *self);
void ts_parser_set_cancellation_flag(TSParser *self, const size_t *flag);
void ts_tree_delete(TSTree *self);
TSNode ts_tree_root_node(const TSTree *self);
const TSLanguage *ts_tree_language(const TSTree *self);
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
uint32_t ts_language_version(const TSLanguage *self);
uint32_t ts_language_symbol_count(const TSLanguage *self);
uint32_t ts_language_field_count(const TSLanguage *self);
uint32_t ts_node_descendant_count(TSNode self);
uint32_t ts_node_child_count(TSNode self);
uint32_t ts_node_named_child_count(TSNode self);
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

// flat_fast.c: the walk over tree-sitter's own records.
bool kast_syntax_fast_platform(void);
bool kast_syntax_fast_sane(const TSTree *tree);
uint32_t kast_syntax_flatten_fast(const TSTree *tree, kast_node *out, uint32_t cap);

#endif
