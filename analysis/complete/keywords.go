package complete

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Keywords, and how items of one scope distance are ordered by kind.

// kindOrder ranks items of one scope distance: a keyword that starts the
// statement being typed, then values, functions, types, packages, other
// keywords.
func kindOrder(it Item) int {
	switch {
	case it.Keyword && it.Rank != RankKeyword:
		return 0
	case it.Keyword:
		return 6
	}
	switch it.Kind {
	case analysis.KindVariable, analysis.KindParameter, analysis.KindField, analysis.KindConstant, analysis.KindProperty:
		return 1
	case analysis.KindFunction, analysis.KindMethod:
		return 2
	case analysis.KindModule:
		return 4
	}
	if it.Kind.IsType() {
		return 3
	}
	return 5
}

// statementKeywords moves the keywords the prefix starts ahead of every
// name when the prefix begins a statement: "ret" there is return.
func (c *collector) statementKeywords(text []byte, start int) {
	if c.prefix == "" {
		return
	}
	i := start
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i > 0 && text[i-1] != '\n' && text[i-1] != '{' && text[i-1] != ';' {
		return
	}
	for n, it := range c.items {
		if it.Keyword && strings.HasPrefix(it.Label, c.prefix) {
			c.items[n].Rank = RankLocal
		}
	}
}

// keywords adds the language's keywords, ranked after every name.
func (c *collector) keywords() {
	for _, k := range keywords[c.f.Lang] {
		c.add(Item{Label: k, Keyword: true, Rank: RankKeyword})
	}
}

var keywords = map[string][]string{
	"kotlin": {"abstract", "class", "data", "else", "enum", "false", "for", "fun", "if", "import", "in", "interface",
		"is", "null", "object", "open", "override", "package", "private", "return", "sealed", "this", "true", "val", "var", "when", "while"},
	"go": {"break", "case", "chan", "const", "continue", "default", "defer", "else", "for", "func", "go", "if",
		"import", "interface", "map", "package", "range", "return", "select", "struct", "switch", "type", "var"},
	"python": {"and", "as", "class", "def", "elif", "else", "False", "for", "from", "if", "import", "in", "is",
		"lambda", "None", "not", "or", "pass", "raise", "return", "True", "try", "while", "with", "yield"},
	"typescript": {"class", "const", "else", "export", "extends", "function", "if", "import", "interface", "let",
		"new", "return", "this", "type", "while"},
	"tsx": {"class", "const", "else", "export", "extends", "function", "if", "import", "interface", "let", "new",
		"return", "this", "type", "while"},
	"javascript": {"class", "const", "else", "export", "extends", "function", "if", "import", "let", "new",
		"return", "this", "while"},
	"java": {"abstract", "class", "else", "enum", "extends", "final", "for", "if", "implements", "import",
		"interface", "new", "package", "private", "protected", "public", "return", "static", "this", "void", "while"},
	"rust": {"enum", "fn", "for", "if", "impl", "let", "match", "mod", "mut", "pub", "return", "self", "struct",
		"trait", "use", "while"},
	"ruby": {"class", "def", "do", "else", "elsif", "end", "if", "module", "nil", "require", "return", "self",
		"unless", "while", "yield"},
}
