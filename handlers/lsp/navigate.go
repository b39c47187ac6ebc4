package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/server"
)

func (r *request) symbolLocations(syms []navigate.Symbol) protocol.LocationSlice {
	out := protocol.LocationSlice{}
	for _, s := range syms {
		out = append(out, r.loc(s.Def.Path, s.NameSpan))
	}
	return out
}

// Definition answers textDocument/definition.
func (l *LSP) Definition(ctx context.Context, p *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[protocol.DefinitionResult](protocol.LocationSlice{}, err)
	}
	return r.symbolLocations(navigate.Definition(r.snap, path, off)), nil
}

// Declaration answers textDocument/declaration: kast's facts do not tell a
// declaration from its definition, so it is the definition.
func (l *LSP) Declaration(ctx context.Context, p *protocol.DeclarationParams) (protocol.DeclarationResult, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[protocol.DeclarationResult](protocol.LocationSlice{}, err)
	}
	return r.symbolLocations(navigate.Definition(r.snap, path, off)), nil
}

// TypeDefinition answers textDocument/typeDefinition.
func (l *LSP) TypeDefinition(ctx context.Context, p *protocol.TypeDefinitionParams) (protocol.DefinitionResult, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[protocol.DefinitionResult](protocol.LocationSlice{}, err)
	}
	return r.symbolLocations(navigate.TypeDefinition(r.snap, path, off)), nil
}

// Implementation answers textDocument/implementation.
func (l *LSP) Implementation(ctx context.Context, p *protocol.ImplementationParams) (protocol.DefinitionResult, error) {
	r, err := l.requestWhole(ctx)
	if err != nil {
		return nil, err
	}
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[protocol.DefinitionResult](protocol.LocationSlice{}, err)
	}
	return r.symbolLocations(navigate.Implementation(r.snap, path, off)), nil
}

// referenceLocation is a Location; a use that ties as surely to another
// overload (a Kotlin or Java call its arguments do not bind) is listed
// too, marked with data {"ambiguous": true}. Clients that do not know the
// field see an ordinary Location. (Its fields are spelled out: embedding
// protocol.Location would promote its JSON encoder and drop data.)
type referenceLocation struct {
	URI   uri.URI        `json:"uri"`
	Range protocol.Range `json:"range"`
	Data  *referenceData `json:"data,omitempty"`
}

type referenceData struct {
	Ambiguous bool `json:"ambiguous"`
}

// References answers textDocument/references.
func (l *LSP) References(ctx context.Context, p *protocol.ReferenceParams) (referenceLocations, error) {
	r, err := l.requestWhole(ctx)
	if err != nil {
		return nil, err
	}
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty(referenceLocations{}, err)
	}
	out := referenceLocations{}
	var fileURI uri.URI
	var filePath string
	for _, loc := range navigate.References(r.snap, path, off, p.Context.IncludeDeclaration) {
		if loc.Path != filePath {
			fileURI, filePath = uri.File(loc.Path), loc.Path // references come by file
		}
		ref := referenceLocation{URI: fileURI, Range: r.rng(loc.Path, loc.Span)}
		if loc.Ambiguous {
			ref.Data = &referenceData{Ambiguous: true}
		}
		out = append(out, ref)
	}
	return out, nil
}

// DocumentHighlight answers textDocument/documentHighlight.
func (l *LSP) DocumentHighlight(ctx context.Context, p *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty([]protocol.DocumentHighlight{}, err)
	}
	out := []protocol.DocumentHighlight{}
	for _, h := range navigate.Highlights(r.snap, path, off) {
		kind := protocol.DocumentHighlightKindRead
		if h.Write {
			kind = protocol.DocumentHighlightKindWrite
		}
		out = append(out, protocol.DocumentHighlight{Range: r.rng(path, h.Span), Kind: kind})
	}
	return out, nil
}

// Hover answers textDocument/hover.
func (l *LSP) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[*protocol.Hover](nil, err)
	}
	info, ok := navigate.Hover(r.snap, path, off)
	if !ok {
		return nil, nil
	}
	rng := r.rng(path, info.Span)
	if wantsPlaintext(server.ConnOf(ctx)) {
		return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: plaintext(info.Markdown)}, Range: &rng}, nil
	}
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: info.Markdown}, Range: &rng}, nil
}

// wantsPlaintext reports whether the client prefers plain text in hovers
// (its contentFormat lists plaintext before markdown, or markdown not at
// all): Emacs eglot without markdown-mode shows fences raw otherwise.
func wantsPlaintext(conn *server.Conn) bool {
	if conn == nil {
		return false
	}
	caps := conn.ClientCapabilities()
	if caps.TextDocument == nil || caps.TextDocument.Hover == nil || len(caps.TextDocument.Hover.ContentFormat) == 0 {
		return false
	}
	return caps.TextDocument.Hover.ContentFormat[0] == protocol.MarkupKindPlainText
}

// plaintext drops the code fences of a hover's markdown.
func plaintext(md string) string {
	var lines []string
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "```") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// SignatureHelp answers textDocument/signatureHelp.
func (l *LSP) SignatureHelp(ctx context.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if err != nil {
		return empty[*protocol.SignatureHelp](nil, err)
	}
	d, _ := r.document(path)
	sig, ok := navigate.SignatureHelp(r.snap, path, off, d.Text)
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Label}
	if sig.Doc != "" {
		info.Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: sig.Doc}
	}
	for _, pr := range sig.Params {
		// Parameter offsets are in the label's UTF-16 code units.
		info.Parameters = append(info.Parameters, protocol.ParameterInformation{
			Label: protocol.ParameterInformationLabelTuple{utf16Len(sig.Label[:pr[0]]), utf16Len(sig.Label[:pr[1]])},
		})
	}
	return &protocol.SignatureHelp{
		Signatures:      []protocol.SignatureInformation{info},
		ActiveSignature: ptr(uint32(0)),
		ActiveParameter: protocol.NewNullable(uint32(sig.Active)),
	}, nil
}

func utf16Len(s string) uint32 {
	n := uint32(0)
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
