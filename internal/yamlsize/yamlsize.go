package yamlsize

// Nodes bounds, from above, the nodes yaml.v3 makes of data, in one
// pass and without allocating. Besides a document and its root, every
// node is an entry of a collection, which an indicator opens or
// separates: '[', '{', "- ", '?', ',', ':', or an alias '*'; each
// indicator leads to at most two nodes (a key and its value, or a
// collection and its first entry). A document marker at the start of a
// line begins another document and its root. Indicators inside scalars
// and comments are counted too: more than there are, as a bound may.
func Nodes(data []byte) int {
	n := 2 // the document and its root
	for i, b := range data {
		lineStart := i == 0 || data[i-1] == '\n'
		switch {
		case b == '[', b == '{', b == ',', b == ':', b == '*', b == '?':
			n += 2
		case b == '-' && (lineStart || i+1 == len(data) || isSpace(data[i+1])):
			n += 2
		case b == '.' && lineStart:
			n += 2
		}
	}
	return n
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
