package ck

// Tool describes one tool for tools/list.
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
}

// Schemas use plain types only (no ["x","null"] unions): some clients,
// Gemini's among them, reject unions (ck issue #106).
func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func stringList(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

func object(required []string, props map[string]any) map[string]any {
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func rankedProps(extra map[string]any) map[string]any {
	p := map[string]any{
		"query":                prop("string", "Search query"),
		"path":                 prop("string", "Absolute directory or file path inside the workspace"),
		"top_k":                prop("integer", "Maximum number of results (default 10)"),
		"threshold":            prop("number", "Minimum relevance score"),
		"include_patterns":     stringList("Only files matching these globs (relative path or base name)"),
		"exclude_patterns":     stringList("Skip files or directories matching these globs"),
		"context_lines":        prop("integer", "Lines of context around each result (default 0)"),
		"before_context_lines": prop("integer", "Lines of context before each result"),
		"after_context_lines":  prop("integer", "Lines of context after each result"),
		"cursor":               prop("string", "Cursor from a previous page's next_cursor"),
		"page_size":            prop("integer", "Results per page (default 50, at most 200)"),
		"include_snippet":      prop("boolean", "Include the code of each result (default true)"),
		"snippet_length":       prop("integer", "Maximum characters per snippet (default 500, at most 2000)"),
		"respect_gitignore":    prop("boolean", "Honour .gitignore files (default true); false adds the files they exclude to the scope (regex only searches files not indexed)"),
		"use_default_excludes": prop("boolean", "Skip ck's default directories (.git, node_modules, target, build, venv, ...) (default true)"),
		"rerank":               prop("boolean", "Rerank semantic and lexical results by how much of the query each holds (default false); hybrid results are always reranked by the arms' scores, the symbol's name and kind"),
		"rerank_model":         prop("string", "Reranker name; kast has one, kast-term-coverage, whatever is asked"),
		"case_insensitive":     prop("boolean", "Accepted as ck has it; ranked search is case-insensitive already"),
		"whole_word":           prop("boolean", "Accepted as ck has it; ranked search matches whole terms already"),
		"fixed_string":         prop("boolean", "Accepted as ck has it; ranked search does not use patterns"),
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// Tools lists the ck tools with their input schemas.
func Tools() []Tool {
	return []Tool{
		{"semantic_search", "Search for code by meaning: chunks (functions, methods, types, blocks) ranked by embedding similarity. Default threshold is the embedder's (0.1 for the built-in embedder learned from the workspace, 0.6 for real models).",
			object([]string{"query", "path"}, rankedProps(nil))},
		{"lexical_search", "Search for code by keywords: chunks ranked by BM25 over identifier parts (camelCase and snake_case split).",
			object([]string{"query", "path"}, rankedProps(nil))},
		{"hybrid_search", "Combine semantic and lexical rankings by reciprocal rank fusion (k=60). Scores are RRF scores; default threshold 0.02.",
			object([]string{"query", "path"}, rankedProps(nil))},
		{"regex_search", "Search for code with a regular expression, grep-like, line by line, as ripgrep does: RE2 syntax (no look-around or backreferences), Unicode-aware \\w \\b \\s \\d. Hidden files, .gitignore'd and .ckignore'd files and ck's default directories are skipped unless asked.",
			object([]string{"pattern", "path"}, map[string]any{
				"pattern":              prop("string", "Regular expression pattern"),
				"path":                 prop("string", "Absolute directory or file path inside the workspace"),
				"ignore_case":          prop("boolean", "Case-insensitive matching (default false)"),
				"whole_word":           prop("boolean", "Match whole words only"),
				"fixed_string":         prop("boolean", "Treat the pattern as a literal string"),
				"context":              prop("integer", "Context lines around each match (default 0)"),
				"include_patterns":     stringList("Only files matching these globs"),
				"exclude_patterns":     stringList("Skip files or directories matching these globs"),
				"cursor":               prop("string", "Cursor from a previous page's next_cursor"),
				"page_size":            prop("integer", "Results per page (default 50, at most 200)"),
				"include_snippet":      prop("boolean", "Include the matching line (default true)"),
				"snippet_length":       prop("integer", "Maximum characters per snippet (default 500, at most 2000)"),
				"respect_gitignore":    prop("boolean", "Honour .gitignore files (default true)"),
				"use_default_excludes": prop("boolean", "Skip ck's default directories (.git, node_modules, target, build, venv, ...) (default true)"),
			})},
		{"index_status", "Get search index statistics for a workspace path.",
			object([]string{"path"}, map[string]any{"path": prop("string", "Absolute directory path")})},
		{"reindex", "Rebuild the search index of a workspace path.",
			object([]string{"path"}, map[string]any{
				"path":  prop("string", "Absolute directory path"),
				"force": prop("boolean", "Drop the index and rebuild everything (default true); false updates changed files only"),
			})},
		{"health_check", "Verify the server is running.", object(nil, map[string]any{})},
		{"default_ckignore", "The default .ckignore patterns, applied when a workspace root has no .ckignore of its own.", object(nil, map[string]any{})},
	}
}
