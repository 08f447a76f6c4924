package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/jsonsize"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// ErrBadResult is returned for a saved result that cannot be read.
var ErrBadResult = badinput.New("bad saved result")

// ErrBaselineName is returned for a name no baseline file can have.
var ErrBaselineName = badinput.New("bad baseline name")

// ErrNoBaseline is returned when the named baseline was never saved.
var ErrNoBaseline = badinput.New("no such baseline")

// MaxSaved is the largest saved result Read reads, and with maxDecoded
// what reading one may take: the largest real run measured here, the
// most distinct packets of a capture (1,000) sampled for 60 s, saved
// 72 MB, and a default run 2 MB. A file of 128 MiB took 0.55 GB at most
// to read (docs/comparing.md); of 256 MiB, the bound before, 1.1 GB.
const MaxSaved = 128 << 20

// maxDecoded is the memory a saved result of n bytes may take decoded,
// as internal/jsonsize bounds it: saved runs' bounds were 0.7 times
// their size as written, 1.8 times compacted (jq -c), and small ones the
// decoder's own 64 KiB more. A file past it is no saved run: 256 MiB of
// empty cases ({}, {}, …) took more than 10 GB.
func maxDecoded(n int) int64 { return int64(n)*5/2 + 1<<20 }

// Read loads a result saved with --format json or as a baseline: at
// most MaxSaved bytes, refused before decoding past maxDecoded.
func Read(path string) (*Run, error) {
	data, err := safefs.ReadFile(path, MaxSaved)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	return Parse(path, data)
}

// decodeSaved decodes a saved file's data into v, bounded in memory
// before it is decoded; path names it in errors, which wrap ErrBadResult.
func decodeSaved(path string, data []byte, v any) error {
	if err := jsonsize.Check(data, v, maxDecoded(len(data))); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	return nil
}

// Parse reads a saved result from data; path names it in errors.
func Parse(path string, data []byte) (*Run, error) {
	var r Run
	if err := decodeSaved(path, data, &r); err != nil {
		return nil, err
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%w: %s has schema %q, want %q", ErrBadResult, path, r.Schema, Schema)
	}
	if len(r.Programs) == 0 {
		return nil, fmt.Errorf("%w: %s holds no program", ErrBadResult, path)
	}
	if r.Partial {
		return nil, fmt.Errorf("%w: %s is a partial result", ErrBadResult, path)
	}
	// Comparisons index cases and samples: refuse what cannot be compared.
	if err := check(path, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

var baselineName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// DefaultBaselineDir is where baselines are saved and read unless a
// caller names another directory: beside the project, as a build's
// own cache is.
const DefaultBaselineDir = ".xdpmicro"

// BaselinePath is where the baseline of that name lives in dir.
func BaselinePath(dir, name string) (string, error) {
	if !baselineName.MatchString(name) {
		return "", fmt.Errorf("%w %q: use letters, digits, '.', '_' and '-'", ErrBaselineName, name)
	}
	return filepath.Join(dir, name+".json"), nil
}

// SaveBaseline stores the report as a baseline, atomically.
func (r *Run) SaveBaseline(dir, name string) (string, error) {
	path, err := BaselinePath(dir, name)
	if err != nil {
		return "", err
	}
	d, err := safefs.OpenDir(dir, true)
	if err != nil {
		return "", fmt.Errorf("baseline directory: %w", err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return "", err
	}
	if err := d.WriteFile(filepath.Base(path), buf.Bytes()); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// LoadBaseline reads the baseline of that name from dir.
func LoadBaseline(dir, name string) (*Run, error) {
	path, err := BaselinePath(dir, name)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q in %s", ErrNoBaseline, name, dir)
	}
	return Read(path)
}

// WriteJSON writes the report as the saved schema's JSON.
func (r *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
