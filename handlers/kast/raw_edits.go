package kast

// Edit plans and applying them: raw/rename, raw/optimize-imports,
// raw/apply-edits, raw/workspace-refresh and raw/code-actions.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/imports"
	"github.com/kast-dev/kast/analysis/rename"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// --- raw/rename and raw/optimize-imports

type renameQuery struct {
	positional
	NewName *string `json:"newName"`
	DryRun  *bool   `json:"dryRun"`
}

func (q *renameQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.NewName == nil || strings.TrimSpace(*q.NewName) == "" {
		return validation("newName must not be blank", nil)
	}
	return nil
}

type editPlan struct {
	Edits         []kastEdit   `json:"edits"`
	FileHashes    []fileHash   `json:"fileHashes"`
	AffectedFiles []string     `json:"affectedFiles"`
	SearchScope   *searchScope `json:"searchScope,omitempty"`
	SchemaVersion int          `json:"schemaVersion"`
}

// kastEdit is an outgoing TextEdit (offsets always present).
type kastEdit struct {
	FilePath    string `json:"filePath"`
	StartOffset int    `json:"startOffset"`
	EndOffset   int    `json:"endOffset"`
	NewText     string `json:"newText"`
}

// plan lists edits with the hashes of the files they apply to.
func (r *kastRequest) plan(edits []kastEdit) (editPlan, error) {
	slices.SortFunc(edits, func(a, b kastEdit) int {
		return cmp.Or(cmp.Compare(a.FilePath, b.FilePath), cmp.Compare(a.StartOffset, b.StartOffset))
	})
	p := editPlan{Edits: edits, FileHashes: []fileHash{}, AffectedFiles: []string{}, SchemaVersion: kastSchemaVersion}
	for _, e := range edits {
		if n := len(p.AffectedFiles); n > 0 && p.AffectedFiles[n-1] == e.FilePath {
			continue
		}
		text, err := r.text(e.FilePath)
		if err != nil {
			return editPlan{}, err
		}
		p.AffectedFiles = append(p.AffectedFiles, e.FilePath)
		p.FileHashes = append(p.FileHashes, fileHash{e.FilePath, edit.Hash(text)})
	}
	return p, nil
}

// rename plans a rename; dryRun is accepted, and the plan is never applied
// here (raw/apply-edits does that), as in Kast.
func (k *Service) rename(ctx context.Context, q *renameQuery) (editPlan, error) {
	r, def, path, offset, err := k.at(ctx, q.Position)
	if err != nil {
		return editPlan{}, err
	}
	edits, err := rename.Rename(r.snap, path, offset, *q.NewName)
	var re *rename.Error
	if errors.As(err, &re) {
		details := map[string]string{"filePath": path, "offset": fmt.Sprint(offset)}
		if re.Unsure {
			details["candidates"] = r.listCandidates(re.Candidates)
			return editPlan{}, apiError(kastConflict, "RENAME_REFUSED", re.Msg, details)
		}
		if re.Conflict {
			return editPlan{}, apiError(kastConflict, "RENAME_REFUSED", re.Msg, details)
		}
		return editPlan{}, validation(re.Msg, details)
	}
	if err != nil {
		return editPlan{}, err
	}
	out := make([]kastEdit, len(edits))
	for i, e := range edits {
		out[i] = kastEdit{e.Path, e.Span.Start, e.Span.End, e.NewText}
	}
	p, err := r.plan(out)
	if err != nil {
		return editPlan{}, err
	}
	sym, _ := r.symbol(def, symbolOpts{})
	p.SearchScope = scopeOf(sym, true, len(p.AffectedFiles))
	return p, nil
}

// listCandidates lists declarations for a refusal's details, one
// "fqName path:line" per line: the client can pick one and ask again.
func (r *kastRequest) listCandidates(ids []resolve.DefID) string {
	var out []string
	for _, id := range ids {
		if sym, ok := r.symbol(id, symbolOpts{}); ok {
			out = append(out, fmt.Sprintf("%s %s:%d", sym.FqName, id.Path, sym.Location.StartLine))
		}
	}
	return strings.Join(out, "\n")
}

type importPlan struct {
	Edits         []kastEdit `json:"edits"`
	FileHashes    []fileHash `json:"fileHashes"`
	AffectedFiles []string   `json:"affectedFiles"`
	SchemaVersion int        `json:"schemaVersion"`
}

func (r *kastRequest) importEdits(path string) []kastEdit {
	f := r.snap.File(path)
	text, err := r.text(path)
	if f == nil || err != nil {
		return nil
	}
	var out []kastEdit
	for _, e := range imports.Organize(f, text) {
		out = append(out, kastEdit{path, e.Start, e.End, e.NewText})
	}
	return out
}

func (k *Service) optimizeImports(ctx context.Context, q *filesQuery) (importPlan, error) {
	r, paths, err := k.paths(ctx, *q.FilePaths)
	if err != nil {
		return importPlan{}, err
	}
	edits := []kastEdit{}
	for _, path := range paths {
		edits = append(edits, r.importEdits(path)...)
	}
	p, err := r.plan(edits)
	return importPlan{p.Edits, p.FileHashes, p.AffectedFiles, kastSchemaVersion}, err
}

// --- raw/apply-edits

type fileOperation struct {
	Type         string  `json:"type"`
	FilePath     string  `json:"filePath"`
	Content      *string `json:"content"`
	ExpectedHash *string `json:"expectedHash"`
}

type applyEditsQuery struct {
	Edits          *[]textEdit     `json:"edits"`
	FileHashes     *[]fileHash     `json:"fileHashes"`
	FileOperations []fileOperation `json:"fileOperations"`
}

func (q *applyEditsQuery) check() error {
	if q.Edits == nil {
		return validation("Missing required field: edits", nil)
	}
	if q.FileHashes == nil {
		return validation("Missing required field: fileHashes", nil)
	}
	for _, e := range *q.Edits {
		if e.StartOffset == nil || e.EndOffset == nil {
			return validation("Every edit needs startOffset and endOffset", map[string]string{"filePath": e.FilePath})
		}
	}
	for _, op := range q.FileOperations {
		switch {
		case op.Type == "CREATE_FILE" && op.Content == nil:
			return validation("CREATE_FILE needs content", map[string]string{"filePath": op.FilePath})
		case op.Type == "DELETE_FILE" && op.ExpectedHash == nil:
			return validation("DELETE_FILE needs expectedHash", map[string]string{"filePath": op.FilePath})
		case op.Type != "CREATE_FILE" && op.Type != "DELETE_FILE":
			return validation("Unknown file operation type "+op.Type, map[string]string{"filePath": op.FilePath})
		}
	}
	return nil
}

type applyEditsResult struct {
	Applied       []kastEdit `json:"applied"`
	AffectedFiles []string   `json:"affectedFiles"`
	CreatedFiles  []string   `json:"createdFiles"`
	DeletedFiles  []string   `json:"deletedFiles"`
	SchemaVersion int        `json:"schemaVersion"`
}

func (k *Service) applyEdits(ctx context.Context, q *applyEditsQuery) (applyEditsResult, error) {
	first := ""
	if len(*q.Edits) > 0 {
		first = (*q.Edits)[0].FilePath
	} else if len(q.FileOperations) > 0 {
		first = q.FileOperations[0].FilePath
	}
	r, err := k.request(ctx, first)
	if err != nil {
		return applyEditsResult{}, err
	}
	plan := edit.Plan{Roots: []string{r.root}, Hashes: map[string]string{}}
	for _, h := range *q.FileHashes {
		path, err := r.confine(h.FilePath, confine.Write)
		if err != nil {
			return applyEditsResult{}, err
		}
		if _, dup := plan.Hashes[path]; dup {
			return applyEditsResult{}, validation("Duplicate expected hash for "+path, map[string]string{"filePath": path})
		}
		plan.Hashes[path] = h.Hash
	}
	for _, e := range *q.Edits {
		path, err := r.confine(e.FilePath, confine.Write)
		if err != nil {
			return applyEditsResult{}, err
		}
		plan.Edits = append(plan.Edits, edit.Edit{Path: path, Start: *e.StartOffset, End: *e.EndOffset, NewText: e.NewText})
	}
	for _, op := range q.FileOperations {
		access := confine.Delete
		if op.Type == "CREATE_FILE" {
			access = confine.Create
		}
		path, err := r.confine(op.FilePath, access)
		if err != nil {
			return applyEditsResult{}, err
		}
		plan.Ops = append(plan.Ops, edit.FileOp{Create: op.Type == "CREATE_FILE", Path: path, Content: valueOr(op.Content, ""), ExpectedHash: valueOr(op.ExpectedHash, "")})
	}
	applied, err := edit.Apply(plan)
	// Whatever was written is reindexed, so the next read sees it.
	k.reindex(ctx, r, applied.Affected)
	if err != nil {
		return applyEditsResult{}, err
	}
	res := applyEditsResult{Applied: []kastEdit{}, AffectedFiles: applied.Affected, CreatedFiles: applied.Created, DeletedFiles: applied.Deleted, SchemaVersion: kastSchemaVersion}
	for _, e := range applied.Edits {
		res.Applied = append(res.Applied, kastEdit{e.Path, e.Start, e.End, e.NewText})
	}
	return res, nil
}

// reindex brings the index up to date for files changed on disk, and
// reports which were refreshed and which removed.
func (k *Service) reindex(ctx context.Context, r *kastRequest, paths []string) (refreshed, removed []string) {
	refreshed, removed = []string{}, []string{}
	// Between the root's refreshes, so none writes a file's old text back.
	_ = k.pool.Update(r.root, func(ws *workspace.Workspace) error {
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				if ws.Remove(path) == nil {
					removed = append(removed, path)
				}
				continue
			}
			if !workspace.Supported(path) {
				continue
			}
			info, err := os.Stat(path)
			if err == nil && ws.Reindex(ctx, path, src, info.ModTime()) == nil {
				refreshed = append(refreshed, path)
			}
		}
		return nil
	})
	k.pool.ScheduleUses(r.root)
	return refreshed, removed
}

// --- raw/workspace-refresh

type refreshQuery struct {
	FilePaths []string `json:"filePaths"`
}

type refreshResult struct {
	RefreshedFiles []string `json:"refreshedFiles"`
	RemovedFiles   []string `json:"removedFiles"`
	FullRefresh    bool     `json:"fullRefresh"`
	SchemaVersion  int      `json:"schemaVersion"`
}

func (k *Service) refresh(ctx context.Context, q *refreshQuery) (refreshResult, error) {
	first := ""
	if len(q.FilePaths) > 0 {
		first = q.FilePaths[0]
	}
	r, err := k.request(ctx, first)
	if err != nil {
		return refreshResult{}, err
	}
	if len(q.FilePaths) > 0 {
		var paths []string
		for _, p := range q.FilePaths {
			path, err := r.confine(p, confine.Read)
			if err != nil {
				return refreshResult{}, err
			}
			paths = append(paths, path)
		}
		refreshed, removed := k.reindex(ctx, r, paths)
		return refreshResult{refreshed, removed, false, kastSchemaVersion}, nil
	}
	before := map[string]bool{}
	for _, p := range r.snap.Files() {
		before[p] = true
	}
	if _, err := k.pool.Refresh(ctx, r.root, nil); err != nil {
		return refreshResult{}, err
	}
	k.pool.ScheduleUses(r.root)
	res := refreshResult{RefreshedFiles: []string{}, RemovedFiles: []string{}, FullRefresh: true, SchemaVersion: kastSchemaVersion}
	after, _ := k.request(ctx, r.root)
	for _, p := range after.snap.Files() {
		res.RefreshedFiles = append(res.RefreshedFiles, p)
		delete(before, p)
	}
	res.RemovedFiles = append(res.RemovedFiles, sortedKeys(before)...)
	return res, nil
}

// --- raw/code-actions

type codeActionsQuery struct {
	positional
	DiagnosticCode *string `json:"diagnosticCode"`
}

type codeAction struct {
	Title          string     `json:"title"`
	DiagnosticCode *string    `json:"diagnosticCode,omitempty"`
	Edits          []kastEdit `json:"edits"`
	FileHashes     []fileHash `json:"fileHashes"`
}

type codeActionsResult struct {
	Actions       []codeAction `json:"actions"`
	SchemaVersion int          `json:"schemaVersion"`
}

// codeActions offers what kast can plan at a position: organizing the
// file's imports (for UNUSED_IMPORT, or when no code is asked for).
func (k *Service) codeActions(ctx context.Context, q *codeActionsQuery) (codeActionsResult, error) {
	r, err := k.request(ctx, q.Position.FilePath)
	if err != nil {
		return codeActionsResult{}, err
	}
	path, _, _, err := r.position(q.Position)
	if err != nil {
		return codeActionsResult{}, err
	}
	res := codeActionsResult{Actions: []codeAction{}, SchemaVersion: kastSchemaVersion}
	if q.DiagnosticCode == nil || *q.DiagnosticCode == "UNUSED_IMPORT" {
		if edits := r.importEdits(path); len(edits) > 0 {
			p, err := r.plan(edits)
			if err != nil {
				return codeActionsResult{}, err
			}
			res.Actions = append(res.Actions, codeAction{Title: "Optimize imports", DiagnosticCode: q.DiagnosticCode, Edits: p.Edits, FileHashes: p.FileHashes})
		}
	}
	return res, nil
}
