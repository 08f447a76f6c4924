package yamlsize

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Nodes is a bound: a document it admits holds at most that many nodes,
// aliases and all, however its YAML is written.
func TestNodesBound(t *testing.T) {
	example, err := os.ReadFile("../../packets/testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range [][]byte{
		example, aliases(100), []byte("a"), []byte("a:\nb:\n"), []byte("{a, b, c}"), []byte("[a: b, c: d]"),
		[]byte("a:\n b:\n  c:\n   d: e"), []byte("- - - a"), []byte("[? ]"), []byte("-\n-\n"), []byte(`{"a":1,"b":[1,2]}`),
		[]byte("x: &a {p: q}\ny: [*a, *a, {<<: *a}]"), []byte("? a\n: b"), []byte("k: |\n  - a\n  - b\n"),
	} {
		checkNodeBound(t, doc)
	}
}

// aliases is a YAML document of n aliases of one scalar.
func aliases(n int) []byte {
	return []byte("cases: &a [x]\nmore: [" + strings.Repeat("*a, ", n) + "*a]\n")
}

// checkNodeBound fails t if yaml.v3 makes more nodes of doc than
// Nodes counts.
func checkNodeBound(t *testing.T, doc []byte) {
	t.Helper()
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) != nil {
		return
	}
	if n, bound := countNodes(&root), Nodes(doc); n > bound {
		t.Fatalf("%q: %d nodes, counted %d", doc, n, bound)
	}
}

// countNodes counts n and the nodes under it; an alias is one node.
func countNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countNodes(c)
	}
	return count
}

// FuzzNodes: whatever the YAML, yaml.v3 makes no more nodes of it
// than Nodes counts, which is what every YAML input is refused by.
func FuzzNodes(f *testing.F) {
	example, err := os.ReadFile("../../packets/testdata/example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(example), "a", "a:\nb:\n", "{a, b, c}", "[a: b, c: d]", "- - - a", "[? ]", "x: &a b\ny: [*a, *a]",
		"--- a\n--- b\n", "a\n...\nb\n", "? a\n: b", "k: >\n  a: b\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkNodeBound(t, doc)
	})
}
