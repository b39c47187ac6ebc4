package ck

import "github.com/kast-dev/kast/analysis/search"

// searchArgs are the arguments of the four search tools.
type searchArgs struct {
	Query              string   `json:"query"`
	Pattern            string   `json:"pattern"`
	Path               string   `json:"path"`
	TopK               *int     `json:"top_k"`
	Threshold          *float64 `json:"threshold"`
	IgnoreCase         *bool    `json:"ignore_case"`
	CaseInsensitive    *bool    `json:"case_insensitive"`
	WholeWord          *bool    `json:"whole_word"`
	FixedString        *bool    `json:"fixed_string"`
	Context            *int     `json:"context"`
	ContextLines       *int     `json:"context_lines"`
	Before             *int     `json:"before_context_lines"`
	After              *int     `json:"after_context_lines"`
	Include            []string `json:"include_patterns"`
	Exclude            []string `json:"exclude_patterns"`
	Cursor             string   `json:"cursor"`
	PageSize           *int     `json:"page_size"`
	IncludeSnippet     *bool    `json:"include_snippet"`
	SnippetLength      *int     `json:"snippet_length"`
	RespectGitignore   *bool    `json:"respect_gitignore"`
	UseDefaultExcludes *bool    `json:"use_default_excludes"`
	Rerank             *bool    `json:"rerank"`
	RerankModel        *string  `json:"rerank_model"`
}

// validate refuses what ck's unsigned fields cannot hold.
func (a searchArgs) validate() error {
	for _, f := range []struct {
		name string
		v    *int
	}{{"top_k", a.TopK}, {"context", a.Context}, {"context_lines", a.ContextLines}, {"before_context_lines", a.Before},
		{"after_context_lines", a.After}, {"page_size", a.PageSize}, {"snippet_length", a.SnippetLength}} {
		if f.v != nil && *f.v < 0 {
			return invalid("Invalid parameters: %s must be a non-negative integer, not %d", f.name, *f.v)
		}
	}
	return nil
}

func flag(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

func intOr(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

// filter is the walk the arguments ask for: ck's defaults (hidden files,
// .ckignore, ck's directory excludes) unless told otherwise.
func (a searchArgs) filter() search.Filter {
	f := search.CkFilter()
	f.NoIgnore = !flag(a.RespectGitignore, true)
	if !flag(a.UseDefaultExcludes, true) {
		f.Excludes = []string{}
	}
	return f
}

// nilOr keeps an absent list null (ck's None) whatever JSON encoder runs.
func nilOr(v []string) any {
	if v == nil {
		return nil
	}
	return v
}

// parameters reports the arguments as ck does, defaults filled in.
func (a searchArgs) parameters(mode string) map[string]any {
	p := map[string]any{
		"whole_word": flag(a.WholeWord, false), "fixed_string": flag(a.FixedString, false),
		"include_patterns": nilOr(a.Include), "exclude_patterns": nilOr(a.Exclude),
		"respect_gitignore": flag(a.RespectGitignore, true), "use_default_excludes": flag(a.UseDefaultExcludes, true),
		"include_snippet": flag(a.IncludeSnippet, true), "snippet_length": a.SnippetLength,
	}
	if mode == "regex" {
		p["ignore_case"] = flag(a.IgnoreCase, false) || flag(a.CaseInsensitive, false)
		p["context"] = intOr(a.Context, 0)
		return p
	}
	threshold := 0.0
	switch mode {
	case "semantic":
		threshold = 0.6
	case "hybrid":
		threshold = DefaultHybridMin
	}
	if a.Threshold != nil {
		threshold = *a.Threshold
	}
	p["top_k"], p["threshold"] = a.TopK, threshold
	p["rerank"], p["rerank_model"] = flag(a.Rerank, false), a.RerankModel
	p["case_insensitive"] = flag(a.CaseInsensitive, false) || flag(a.IgnoreCase, false)
	p["context_lines"], p["before_context_lines"], p["after_context_lines"] = a.ContextLines, a.Before, a.After
	return p
}
