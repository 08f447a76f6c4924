package main

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxPackageLines is the most lines of code, non-test Go, a package of
// the module may have (docs/development.md, "Limits kept"): lines that
// hold a token, blank lines and comments not counted, so that a package
// is not split for what explains it.
const maxPackageLines = 3000

// moduleRoot is the module's directory, from this package's.
const moduleRoot = "../.."

// Every package of the module keeps within maxPackageLines lines of code.
func TestPackageSizes(t *testing.T) {
	sizes, err := packageSizes(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) < 10 || sizes["report"] == 0 || sizes["."] == 0 {
		t.Fatalf("counted too few packages under %s: %v", moduleRoot, sizes)
	}
	for dir, n := range sizes {
		if n > maxPackageLines {
			t.Errorf("%s has %d lines of non-test Go code, over %d: split it by what it owns", dir, n, maxPackageLines)
		}
	}
}

// packageSizes counts the lines of code of each directory's non-test Go
// files under root, by the directory relative to root; testdata, vendor
// and hidden directories are not the module's packages.
func packageSizes(root string) (map[string]int, error) {
	sizes := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		sizes[dir] += codeLines(path, src)
		return nil
	})
	return sizes, err
}

// codeLines counts the lines of src that hold Go code: not the blank
// ones, nor those of comments alone; a raw string's lines are code but
// for its blank ones.
func codeLines(path string, src []byte) int {
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0) // comments skipped
	lines := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end, not written
		}
		line := file.Line(pos)
		// A raw string's lines are code, all but its blank ones.
		for i, text := range strings.Split(lit, "\n") {
			if i == 0 || tok == token.STRING && strings.TrimSpace(text) != "" {
				lines[line+i] = true
			}
		}
	}
	return len(lines)
}
