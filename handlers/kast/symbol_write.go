package kast

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/edit"
)

// The symbol/* methods that change files: rename and write-and-validate,
// each applying its edits through raw/apply-edits and checking the touched
// files with raw/diagnostics.

// --- symbol/rename

type symbolRenameQuery struct {
	Type string `json:"type"`
	selector
	FilePath *string `json:"filePath,omitempty"`
	Offset   *int    `json:"offset,omitempty"`
	NewName  *string `json:"newName,omitempty"`
}

// check accepts exactly the fields of the request's variant.
func (q *symbolRenameQuery) check() error {
	if q.NewName == nil || strings.TrimSpace(*q.NewName) == "" {
		return validation("newName must not be blank", nil)
	}
	switch q.Type {
	case "RENAME_BY_SYMBOL_REQUEST":
		if q.FilePath != nil || q.Offset != nil {
			return validation("RENAME_BY_SYMBOL_REQUEST takes no filePath or offset", nil)
		}
		return q.selector.check()
	case "RENAME_BY_OFFSET_REQUEST":
		if q.Symbol != nil || q.FileHint != nil || q.Kind != nil || q.ContainingType != nil {
			return validation("RENAME_BY_OFFSET_REQUEST takes filePath, offset and newName only", nil)
		}
		if q.FilePath == nil || q.Offset == nil {
			return validation("RENAME_BY_OFFSET_REQUEST needs filePath and offset", nil)
		}
		return nil
	}
	return validation("type must be RENAME_BY_SYMBOL_REQUEST or RENAME_BY_OFFSET_REQUEST", map[string]string{"type": q.Type})
}

type diagnosticSummary struct {
	Clean        bool             `json:"clean"`
	ErrorCount   int              `json:"errorCount"`
	WarningCount int              `json:"warningCount"`
	Errors       []kastDiagnostic `json:"errors"`
	// ChecksRun names the checks that ran to the end (syntax, kast's own
	// semantic checks, the toolchains): a clean answer means no more.
	ChecksRun []string `json:"checksRun"`
}

type symbolRenameSuccess struct {
	Type          string             `json:"type"`
	OK            bool               `json:"ok"`
	Query         *symbolRenameQuery `json:"query"`
	FilePath      string             `json:"filePath"`
	Offset        int                `json:"offset"`
	EditCount     int                `json:"editCount"`
	AffectedFiles []string           `json:"affectedFiles"`
	ApplyResult   applyEditsResult   `json:"applyResult"`
	Diagnostics   diagnosticSummary  `json:"diagnostics"`
	LogFile       string             `json:"logFile"`
}

// symbolRename plans the rename, applies it and checks the touched files.
func (k *Service) symbolRename(ctx context.Context, q *symbolRenameQuery) (any, error) {
	var pos *filePosition
	if q.Type == "RENAME_BY_OFFSET_REQUEST" {
		if _, err := k.symbolRequest(ctx, &q.WorkspaceRoot, *q.FilePath); err != nil {
			return nil, err
		}
		pos = &filePosition{*q.FilePath, q.Offset}
	} else {
		_, p, _, _, ok, err := k.best(ctx, &q.selector)
		if err != nil || !ok {
			return orNotFound("RENAME", q, *q.Symbol, err)
		}
		pos = p
	}
	plan, err := k.rename(ctx, &renameQuery{positional: positional{pos}, NewName: q.NewName})
	if err != nil {
		return failed("RENAME", "rename", q, err)
	}
	applied, err := k.applyPlan(ctx, plan.Edits, plan.FileHashes)
	if err != nil {
		return failed("RENAME", "apply", q, err)
	}
	diags, err := k.summary(ctx, applied.AffectedFiles)
	if err != nil {
		return failed("RENAME", "diagnostics", q, err)
	}
	return symbolRenameSuccess{"RENAME_SUCCESS", diags.Clean, q, pos.FilePath, *pos.Offset, len(applied.Applied), applied.AffectedFiles, applied, diags, kastLogFile}, nil
}

// applyPlan applies outgoing edits through raw/apply-edits.
func (k *Service) applyPlan(ctx context.Context, edits []kastEdit, hashes []fileHash) (applyEditsResult, error) {
	in := make([]textEdit, len(edits))
	for i, e := range edits {
		in[i] = textEdit{e.FilePath, ptr(e.StartOffset), ptr(e.EndOffset), e.NewText}
	}
	return k.applyEdits(ctx, &applyEditsQuery{Edits: &in, FileHashes: &hashes})
}

// summary runs diagnostics over files and counts them.
func (k *Service) summary(ctx context.Context, files []string) (diagnosticSummary, error) {
	s := diagnosticSummary{Errors: []kastDiagnostic{}, ChecksRun: []string{}}
	if len(files) == 0 {
		s.Clean = true
		return s, nil
	}
	res, err := k.diagnostics(ctx, &diagnosticsQuery{filesQuery: filesQuery{&files}})
	if err != nil {
		return s, err
	}
	for _, d := range res.Diagnostics {
		switch d.Severity {
		case "ERROR":
			s.ErrorCount++
			s.Errors = append(s.Errors, d)
		case "WARNING":
			s.WarningCount++
		}
	}
	s.Clean = s.ErrorCount == 0
	s.ChecksRun = res.checksRun
	return s, nil
}

// --- symbol/write-and-validate

type symbolWriteQuery struct {
	Type          string  `json:"type"`
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	FilePath      *string `json:"filePath,omitempty"`
	Offset        *int    `json:"offset,omitempty"`
	StartOffset   *int    `json:"startOffset,omitempty"`
	EndOffset     *int    `json:"endOffset,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentFile   *string `json:"contentFile,omitempty"`
}

// check accepts exactly the fields of the request's variant. Content is
// required: writing nothing and reporting success misleads (notes §10).
func (q *symbolWriteQuery) check() error {
	if q.FilePath == nil {
		return validation("Missing required field: filePath", nil)
	}
	var ok bool
	switch q.Type {
	case "CREATE_FILE_REQUEST":
		ok = q.Offset == nil && q.StartOffset == nil && q.EndOffset == nil
	case "INSERT_AT_OFFSET_REQUEST":
		ok = q.Offset != nil && q.StartOffset == nil && q.EndOffset == nil
	case "REPLACE_RANGE_REQUEST":
		ok = q.Offset == nil && q.StartOffset != nil && q.EndOffset != nil
	default:
		return validation("type must be CREATE_FILE_REQUEST, INSERT_AT_OFFSET_REQUEST or REPLACE_RANGE_REQUEST", map[string]string{"type": q.Type})
	}
	if !ok {
		return validation(q.Type+": offsets do not match the request type", nil)
	}
	if q.Content == nil && q.ContentFile == nil {
		return validation("content or contentFile is required", nil)
	}
	return nil
}

// echo is the query as the result repeats it: without the content, which
// can be large and which the client has.
func (q *symbolWriteQuery) echo() *symbolWriteQuery {
	c := *q
	c.Content = nil
	return &c
}

type symbolWriteSuccess struct {
	Type          string            `json:"type"`
	OK            bool              `json:"ok"`
	Query         *symbolWriteQuery `json:"query"`
	AppliedEdits  int               `json:"appliedEdits"`
	ImportChanges int               `json:"importChanges"`
	Diagnostics   diagnosticSummary `json:"diagnostics"`
	Message       *string           `json:"message,omitempty"`
	LogFile       string            `json:"logFile"`
}

// symbolWrite writes the content, optimizes the file's imports, then runs
// diagnostics on it.
func (k *Service) symbolWrite(ctx context.Context, q *symbolWriteQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, *q.FilePath)
	if err != nil {
		return nil, err
	}
	access := confine.Write
	if q.Type == "CREATE_FILE_REQUEST" {
		access = confine.Create
	}
	path, err := r.confine(*q.FilePath, access)
	if err != nil {
		return nil, err
	}
	content := valueOr(q.Content, "")
	if q.Content == nil {
		// contentFile is a path the client names like any other: it must
		// lie in the workspace, or this method reads any file for it.
		from, err := r.confine(*q.ContentFile, confine.Read)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(from)
		if err != nil {
			return nil, validation("Cannot read contentFile: "+err.Error(), map[string]string{"filePath": *q.ContentFile})
		}
		content = string(b)
	}
	var applied applyEditsResult
	if q.Type == "CREATE_FILE_REQUEST" {
		empty := []textEdit{}
		applied, err = k.applyEdits(ctx, &applyEditsQuery{Edits: &empty, FileHashes: &[]fileHash{},
			FileOperations: []fileOperation{{Type: "CREATE_FILE", FilePath: path, Content: &content}}})
	} else {
		text, terr := r.text(path)
		if terr != nil {
			return failed("WRITE_AND_VALIDATE", "write", q.echo(), terr)
		}
		start, end := valueOr(q.Offset, valueOr(q.StartOffset, 0)), valueOr(q.Offset, valueOr(q.EndOffset, 0))
		for _, o := range []int{start, end} {
			if err := edit.CheckOffset(path, text, o); err != nil {
				return nil, err
			}
		}
		applied, err = k.applyPlan(ctx, []kastEdit{{path, start, end, content}}, []fileHash{{path, edit.Hash(text)}})
	}
	if err != nil {
		return failed("WRITE_AND_VALIDATE", "write", q.echo(), err)
	}
	res := symbolWriteSuccess{Type: "WRITE_AND_VALIDATE_SUCCESS", Query: q.echo(), AppliedEdits: max(len(applied.Applied), len(applied.CreatedFiles)), LogFile: kastLogFile}
	imports, err := k.optimizeImports(ctx, &filesQuery{&[]string{path}})
	if err != nil {
		return failed("WRITE_AND_VALIDATE", "imports", q.echo(), err)
	}
	if len(imports.Edits) > 0 {
		if _, err := k.applyPlan(ctx, imports.Edits, imports.FileHashes); err != nil {
			return failed("WRITE_AND_VALIDATE", "imports", q.echo(), err)
		}
		res.ImportChanges = len(imports.Edits)
	}
	if res.Diagnostics, err = k.summary(ctx, []string{path}); err != nil {
		return failed("WRITE_AND_VALIDATE", "diagnostics", q.echo(), err)
	}
	res.OK = res.Diagnostics.Clean
	if !res.OK {
		msg := fmt.Sprintf("written, with %d errors", res.Diagnostics.ErrorCount)
		res.Message = &msg
	}
	return res, nil
}
