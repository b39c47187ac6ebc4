package edit

import (
	"cmp"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/kast-dev/kast/analysis/confine"
)

// Edit replaces the byte range [Start, End) of a file with NewText.
type Edit struct {
	Path       string
	Start, End int
	NewText    string
}

// FileOp creates a file with Content, or deletes one whose content hashes to
// ExpectedHash.
type FileOp struct {
	Create       bool
	Path         string
	Content      string
	ExpectedHash string
}

// Plan is an edit plan: edits guarded by the hashes of the files they were
// computed against, and file operations, all confined to Roots.
type Plan struct {
	Roots  []string
	Edits  []Edit
	Hashes map[string]string // path → expected hash
	Ops    []FileOp
}

// Applied is what a plan changed, by the paths Apply wrote through.
type Applied struct {
	Edits    []Edit // sorted by file, then start
	Affected []string
	Created  []string
	Deleted  []string
}

// Apply checks a plan against the files under its roots and, when every
// check passes, writes each changed file atomically (a temporary file renamed
// over it). Nothing is written when a check fails. Every path goes through
// the confinement rule again here, whatever the caller checked: an edited
// file or a created one is written at its real location (through a link
// that stays inside, never replacing the link), a deleted link is removed
// itself. Duplicate hashes are the caller's to reject while decoding; two
// names of one file are rejected here.
func Apply(plan Plan) (Applied, error) {
	if len(plan.Edits) == 0 && len(plan.Ops) == 0 {
		return Applied{}, errorf(Validation, nil, "At least one edit or file operation is required")
	}
	rule := confine.New(plan.Roots)
	hashes := map[string]string{}
	for p, h := range plan.Hashes {
		real, err := Confine(rule, p, confine.Write)
		if err != nil {
			return Applied{}, err
		}
		if _, dup := hashes[real]; dup {
			return Applied{}, errorf(Validation, map[string]string{"filePath": p}, "Two expected hashes name the same file %s", real)
		}
		hashes[real] = h
	}
	byFile := map[string][]Edit{}
	for _, e := range plan.Edits {
		if e.Start < 0 || e.End < e.Start {
			return Applied{}, errorf(Validation, map[string]string{"filePath": e.Path}, "Edit range %d..%d is invalid: need 0 <= start <= end", e.Start, e.End)
		}
		real, err := Confine(rule, e.Path, confine.Write)
		if err != nil {
			return Applied{}, err
		}
		e.Path = real
		byFile[real] = append(byFile[real], e)
	}
	ops := map[string]FileOp{}
	var ordered []FileOp
	for _, op := range plan.Ops {
		access := confine.Delete
		if op.Create {
			access = confine.Create
		}
		real, err := Confine(rule, op.Path, access)
		if err != nil {
			return Applied{}, err
		}
		op.Path = real
		if _, dup := ops[op.Path]; dup {
			return Applied{}, errorf(Validation, map[string]string{"filePath": op.Path}, "Duplicate file operation for %s", op.Path)
		}
		if _, edited := byFile[op.Path]; edited {
			return Applied{}, errorf(Validation, map[string]string{"filePath": op.Path}, "A file operation and text edits both target %s", op.Path)
		}
		ops[op.Path] = op
		ordered = append(ordered, op)
	}

	files := slices.Sorted(maps.Keys(byFile))
	contents := map[string][]byte{}
	for _, path := range files {
		expected, ok := hashes[path]
		if !ok {
			return Applied{}, errorf(Validation, map[string]string{"filePath": path}, "Missing expected hash for edited file")
		}
		src, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return Applied{}, errorf(NotFound, map[string]string{"filePath": path}, "The edited file does not exist")
		}
		if err != nil {
			return Applied{}, err
		}
		if actual := Hash(src); actual != expected {
			return Applied{}, errorf(Conflict, map[string]string{"filePath": path, "expectedHash": expected, "actualHash": actual},
				"The file changed since the edits were planned")
		}
		edits := byFile[path]
		slices.SortStableFunc(edits, func(a, b Edit) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
		for i, e := range edits {
			if err := CheckOffset(path, src, e.Start); err != nil {
				return Applied{}, err
			}
			if err := CheckOffset(path, src, e.End); err != nil {
				return Applied{}, err
			}
			if i > 0 && e.Start < edits[i-1].End {
				return Applied{}, errorf(Validation, map[string]string{"filePath": path}, "Edits overlap at offsets %d..%d and %d..%d",
					edits[i-1].Start, edits[i-1].End, e.Start, e.End)
			}
		}
		// Applied back to front so earlier offsets stay valid.
		out := slices.Clone(src)
		for _, e := range slices.Backward(edits) {
			out = slices.Concat(out[:e.Start], []byte(e.NewText), out[e.End:])
		}
		contents[path] = out
	}
	for _, op := range ordered {
		_, err := os.Stat(op.Path)
		exists := err == nil
		switch {
		case op.Create && exists:
			return Applied{}, errorf(Conflict, map[string]string{"filePath": op.Path}, "The requested file already exists")
		case !op.Create && !exists:
			return Applied{}, errorf(NotFound, map[string]string{"filePath": op.Path}, "The file to delete does not exist")
		case !op.Create:
			src, err := os.ReadFile(op.Path)
			if err != nil {
				return Applied{}, err
			}
			if actual := Hash(src); actual != op.ExpectedHash {
				return Applied{}, errorf(Conflict, map[string]string{"filePath": op.Path, "expectedHash": op.ExpectedHash, "actualHash": actual},
					"The file to delete changed since the plan was made")
			}
		}
	}

	res := Applied{Affected: []string{}, Created: []string{}, Deleted: []string{}, Edits: []Edit{}}
	for _, path := range files {
		if err := writeAtomic(path, contents[path]); err != nil {
			return res, partial(path, err)
		}
		res.Affected = append(res.Affected, path)
		res.Edits = append(res.Edits, byFile[path]...)
	}
	for _, op := range ordered {
		if op.Create {
			if err := os.MkdirAll(filepath.Dir(op.Path), 0o755); err != nil {
				return res, partial(op.Path, err)
			}
			if err := writeAtomic(op.Path, []byte(op.Content)); err != nil {
				return res, partial(op.Path, err)
			}
			res.Created = append(res.Created, op.Path)
		} else {
			if err := os.Remove(op.Path); err != nil {
				return res, partial(op.Path, err)
			}
			res.Deleted = append(res.Deleted, op.Path)
		}
		res.Affected = append(res.Affected, op.Path)
	}
	slices.Sort(res.Affected)
	return res, nil
}

func partial(path string, err error) error {
	return errorf(PartialFailure, map[string]string{"filePath": path}, "Applying the edits failed part way, at %s: %v", path, err)
}

// writeAtomic replaces path's content through a temporary file in the same
// directory, keeping the file's mode, so readers never see a partial write.
// path is a real location (links resolved by Apply), so the rename replaces
// the file and never a link that pointed to it.
func writeAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".kast-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
