package codelimits

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits, in lines from a function's func line to its closing brace.
const (
	maxLines    = 80
	maxCmdLines = 50
)

// TestFunctionLengths fails naming each function of the module over its
// limit.
func TestFunctionLengths(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !held(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files++
		return checkFile(t, path, rel)
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 { // a walk that found next to nothing checked nothing
		t.Fatalf("found only %d Go files under %s", files, root)
	}
}

// moduleRoot is the nearest directory above the test's with a go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// skippedDir says whether a directory holds no code of the module's:
// test data, and hidden directories (.git, .ci's caches).
func skippedDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// held says whether a file's functions are held to the limits: Go source
// that is neither a test nor bpf2go's output.
func held(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") &&
		!strings.HasSuffix(name, "_bpfel.go") && !strings.HasSuffix(name, "_bpfeb.go")
}

// checkFile reports each function of the file over its limit; a file
// marked generated is skipped, as its generator, not a person, wrote it.
func checkFile(t *testing.T, path, rel string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	if ast.IsGenerated(f) {
		return nil
	}
	limit := maxLines
	if rel == "cmd" || strings.HasPrefix(filepath.ToSlash(rel), "cmd/") {
		limit = maxCmdLines
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Type.Func).Line + 1
		if lines > limit {
			t.Errorf("%s:%d: %s is %d lines, over the limit of %d", filepath.ToSlash(rel), fset.Position(fn.Pos()).Line, name(fn), lines, limit)
		}
	}
	return nil
}

// name is a function's name as Go writes a method: (*T).Name or T.Name.
func name(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	if g, ok := typ.(*ast.IndexExpr); ok { // a generic type's receiver
		typ = g.X
	}
	if g, ok := typ.(*ast.IndexListExpr); ok {
		typ = g.X
	}
	id, _ := typ.(*ast.Ident)
	if id == nil {
		return fn.Name.Name
	}
	if star != "" {
		return "(*" + id.Name + ")." + fn.Name.Name
	}
	return id.Name + "." + fn.Name.Name
}
