package mapinit

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// Entries a line each. yaml.v3 builds a node of some 150 bytes for every
// scalar and collection, and takes 3.5 µs an entry: katran's two rings
// (131,080 entries) took 0.46 s and 104 MB, a million entries would take
// seconds and most of a GB. Scripts write maps of that size a line an
// entry, in flow style ({key: 7, value: 1}) or, as PyYAML does, in block
// style of a key line and a value line. Such runs of entries under a
// map's name are read here, a line at a time, and stand in the document
// yaml.v3 reads as one item each, {PLACEHOLDER: N}: the lines of each run
// are kept as text and read again, entry by entry, each time the entries
// are resolved. Anything else (nested values, anchors, quoting with
// escapes, a key range) is yaml.v3's, as before; a line that is not
// plainly one of these ends its run, so a document reads the same either
// way.

// lineRun is a run of entries a line each (or a few lines, in block
// style), under one map's name.
type lineRun struct {
	file  string
	text  []byte // the run's lines, as in the file
	line  int    // the first line's number
	count int    // entries
	// mapName and first are the map and the index in its list of the
	// first entry, for messages (set by parseMaps).
	mapName string
	first   int
}

// yamlDoc is a map-init file as yaml.v3 reads it: runs of entries a line
// each taken out (blank lines keep every line where it was), each run's
// first line an item {placeholder: N}.
type yamlDoc struct {
	text        []byte
	placeholder string
}

// ReadLineRuns, false in tests (internal/object's too), leaves every entry
// to yaml.v3.
var ReadLineRuns = true

// splitLineRuns takes the runs of entries a line each out of data.
func splitLineRuns(name string, data []byte, owned bool) (yamlDoc, []*lineRun, error) {
	if !ReadLineRuns || bytes.IndexByte(data, '\r') >= 0 {
		// yaml.v3 breaks lines at a carriage return wherever it stands,
		// and numbers them so: a file that holds one is yaml.v3's alone
		// (a CRLF file never had a run: its lines hold a control byte).
		return yamlDoc{text: data}, nil, nil
	}
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	sp := &runSplitter{name: name, data: data, owned: owned, mapsIndent: -1, nameIndent: -1,
		doc: yamlDoc{placeholder: "xdpmicro-run-" + hex.EncodeToString(nonce)}}
	for off := 0; off < len(data); {
		off = sp.line(off)
	}
	sp.endRun(len(data))
	sp.doc.text = sp.out
	if sp.out == nil {
		sp.doc.text = data
	}
	return sp.doc, sp.runs, nil
}

// runSplitter is splitLineRuns' walk through a file, a line at a time:
// where it is (under maps:, under a map's name, in a run) and the
// document it writes for yaml.v3.
type runSplitter struct {
	name  string
	data  []byte
	owned bool // data is the splitter's to keep: runs' text need no copy
	doc   yamlDoc
	runs  []*lineRun
	out   []byte // nil until the first run: a file without one is read as it is

	lineNo     int
	inMaps     bool
	mapsIndent int
	nameIndent int // the indentation of the map name the lines follow; -1: none
	run        *lineRun
	runStart   int // offset in data of the run's first line
	runDash    int // the indentation of its items' dashes
	runOut     int // offset in out of the run's placeholder
}

// line reads the line at off: an entry of a run, with the lines of its
// entry, or a line that ends the run and is yaml.v3's. It returns the
// offset of the line after.
func (sp *runSplitter) line(off int) int {
	line, next := lineAt(sp.data, off)
	sp.lineNo++
	indent, rest := indentOf(line)
	switch {
	case !asciiLine(line):
		sp.endRun(off) // yaml.v3's to judge
	case len(rest) == 0 || rest[0] == '#':
		// Blank lines and comments go with a run.
	case indent < 0:
		sp.endRun(off) // a tab in the indentation: yaml.v3's to refuse
		sp.nameIndent = -1
	case indent == 0:
		sp.endRun(off)
		sp.inMaps, sp.nameIndent = isKeyLine(rest) == "maps", -1
	case !sp.inMaps:
	case sp.nameIndent >= 0 && isItem(rest) && (sp.run == nil && indent >= sp.nameIndent || sp.run != nil && indent == sp.runDash):
		if lines := lineItem(sp.data, off, indent); lines > 0 {
			return sp.entry(off, next, indent, lines)
		}
		sp.endRun(off)
	default:
		sp.endRun(off)
		if key := isKeyLine(rest); key != "" && (sp.mapsIndent < 0 || indent == sp.mapsIndent) {
			sp.mapsIndent, sp.nameIndent = indent, indent
		}
	}
	if sp.out != nil {
		sp.out = append(sp.out, sp.data[off:next]...)
	}
	return next
}

// entry adds the entry at off, of lines lines (next the offset of the
// second), to the run, or starts one with it; it returns the offset of
// the line after the entry.
func (sp *runSplitter) entry(off, next, indent, lines int) int {
	if sp.run == nil {
		if sp.out == nil {
			sp.out = bytes.Clone(sp.data[:off]) // the rest but for runs: small
		}
		sp.run = &lineRun{file: sp.name, line: sp.lineNo}
		sp.runStart, sp.runDash, sp.runOut = off, indent, len(sp.out)
	}
	sp.run.count++
	for range lines - 1 {
		_, next = lineAt(sp.data, next)
		sp.lineNo++
	}
	sp.out = append(sp.out, sp.data[off:next]...)
	return next
}

// endRun ends the run, if one is open, at end: its lines are kept as text
// and stand in the document as one item.
func (sp *runSplitter) endRun(end int) {
	if sp.run == nil {
		return
	}
	sp.run.text = sp.data[sp.runStart:end]
	if !sp.owned {
		sp.run.text = bytes.Clone(sp.run.text)
	}
	item := fmt.Sprintf("%*s- {%s: %d}", sp.runDash, "", sp.doc.placeholder, len(sp.runs))
	// The placeholder in place of the first line, every line after
	// it blank: yaml.v3's line numbers stay the file's.
	lines := bytes.Count(sp.run.text, []byte("\n"))
	sp.out = append(sp.out[:sp.runOut], item...)
	sp.out = append(sp.out, bytes.Repeat([]byte("\n"), lines)...)
	sp.runs = append(sp.runs, sp.run)
	sp.run, sp.nameIndent = nil, -1
}

// runOf is the run an item {placeholder: N} stands for, or nil.
func runOf(item *yaml.Node, placeholder string, runs []*lineRun) *lineRun {
	if item.Kind != yaml.MappingNode || len(item.Content) != 2 || item.Content[0].Value != placeholder {
		return nil
	}
	n, err := strconv.Atoi(item.Content[1].Value)
	if err != nil || n < 0 || n >= len(runs) {
		return nil
	}
	return runs[n]
}

// lineAt is the line at off, without its newline, and the offset of the
// next.
func lineAt(data []byte, off int) ([]byte, int) {
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		return bytes.TrimSuffix(data[off:], []byte("\r")), len(data)
	}
	return bytes.TrimSuffix(data[off:off+end], []byte("\r")), off + end + 1
}

// indentOf is a line's indentation in spaces and the rest; -1 where a tab
// is in it.
func indentOf(line []byte) (int, []byte) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i < len(line) && line[i] == '\t' {
		return -1, line[i:]
	}
	return i, bytes.TrimRight(line[i:], " \t")
}

// isKeyLine is the key of a line that is a plain key and a colon alone
// (a comment may follow), "" for any other.
func isKeyLine(rest []byte) string {
	if i := bytes.Index(rest, []byte(" #")); i >= 0 {
		rest = bytes.TrimRight(rest[:i], " \t")
	}
	key, ok := bytes.CutSuffix(rest, []byte(":"))
	if !ok || len(key) == 0 {
		return ""
	}
	for _, c := range key {
		if !isNameByte(c) {
			return ""
		}
	}
	return string(key)
}

// isNameByte says whether c may be in a map's name on a key line: a
// FILE:NAME of another object's map too.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/' || c == ':'
}

// lineField is one field of an entry a line each.
type lineField struct {
	name   string // key, value, key_hex or value_hex
	text   []byte
	quoted bool
	line   int // the line of the entry it is on, from 0: a block entry's value is under its key
}

// isItem says whether an indented line's text is a list item.
func isItem(rest []byte) bool { return len(rest) > 1 && rest[0] == '-' && rest[1] == ' ' }

// lineItem says how many lines the item whose dash is at indent on the
// line at off takes, where it is an entry a line each: a flow mapping on
// its line, or a block mapping of a line a field, of scalars of the
// fields key, value, key_hex and value_hex, each once; 0 where it is not
// one (yaml.v3 reads it). lineFields reads its fields.
func lineItem(data []byte, off, indent int) int {
	_, lines := lineFields(data, off, indent)
	return lines
}

// lineFields reads the fields of the item lineItem measures.
func lineFields(data []byte, off, indent int) ([4]lineField, int) {
	var fields [4]lineField
	line, next := lineAt(data, off)
	rest := line[indent:]
	if !isItem(rest) || !asciiLine(line) {
		return fields, 0
	}
	body := bytes.TrimLeft(rest[1:], " ")
	n, lines := 0, 1
	if len(body) > 0 && body[0] == '{' {
		var ok bool
		if n, ok = flowFields(body, &fields); !ok {
			return fields, 0
		}
	} else {
		// Block style: "- key: 7", then "  value: 1" at the key's column.
		col := len(line) - len(body)
		for {
			f, ok := blockField(body)
			if !ok || n == len(fields) {
				return fields, 0
			}
			f.line = lines - 1
			fields[n], n = f, n+1
			l, after := lineAt(data, next)
			if i, _ := indentOf(l); next >= len(data) || i != col || !asciiLine(l) {
				break
			}
			body, next, lines = l[col:], after, lines+1
		}
	}
	// A line after it, blank lines and comments aside, indented deeper
	// than its dash would be part of it (a scalar going on, say):
	// yaml.v3's to read.
	for after := next; after < len(data); {
		l, following := lineAt(data, after)
		if !asciiLine(l) {
			// A carriage return breaks lines for yaml.v3 where it stands:
			// what follows it, and any other control byte, is yaml.v3's.
			return fields, 0
		}
		i, rest := indentOf(l)
		if len(rest) > 0 && rest[0] != '#' {
			if i < 0 || i > indent {
				return fields, 0
			}
			break
		}
		after = following
	}
	if !validFields(fields[:n]) {
		return fields, 0
	}
	return fields, lines
}

// flowFields reads {name: scalar, ...} and what may follow it on its line
// (spaces, a comment).
func flowFields(b []byte, fields *[4]lineField) (int, bool) {
	b = b[1:]
	n := 0
	for {
		b = bytes.TrimLeft(b, " ")
		name, rest, ok := fieldName(b)
		if !ok || n == len(fields) {
			return 0, false
		}
		text, quoted, rest, ok := scalarText(rest, true)
		if !ok {
			return 0, false
		}
		fields[n], n = lineField{name: name, text: text, quoted: quoted}, n+1
		rest = bytes.TrimLeft(rest, " ")
		switch {
		case len(rest) > 0 && rest[0] == ',':
			b = rest[1:]
		case len(rest) > 0 && rest[0] == '}':
			return n, lineEnds(rest[1:])
		default:
			return 0, false
		}
	}
}

// blockField reads name: scalar, the whole of what is left of a line.
func blockField(b []byte) (lineField, bool) {
	name, rest, ok := fieldName(b)
	if !ok {
		return lineField{}, false
	}
	text, quoted, rest, ok := scalarText(rest, false)
	if !ok || !lineEnds(rest) {
		return lineField{}, false
	}
	return lineField{name: name, text: text, quoted: quoted}, true
}

// lineFieldNames are the fields an entry a line each may have, each with
// its colon and a space.
var lineFieldNames = [...]struct {
	name   string
	prefix []byte
}{{"key", []byte("key: ")}, {"value", []byte("value: ")}, {"key_hex", []byte("key_hex: ")}, {"value_hex", []byte("value_hex: ")}}

// fieldName reads a field's name, its colon and the space after it.
func fieldName(b []byte) (string, []byte, bool) {
	for _, f := range lineFieldNames {
		if rest, ok := bytes.CutPrefix(b, f.prefix); ok {
			return f.name, bytes.TrimLeft(rest, " "), true
		}
	}
	return "", nil, false
}

// scalarText reads a plain scalar of characters that mean nothing else
// in YAML (letters, digits, "_.+-()"), or a double-quoted one without
// escapes; in flow style a comma or brace ends it.
func scalarText(b []byte, flow bool) (text []byte, quoted bool, rest []byte, ok bool) {
	if len(b) > 0 && b[0] == '"' {
		end := bytes.IndexAny(b[1:], "\"\\")
		if end < 0 || b[1+end] != '"' {
			return nil, false, nil, false
		}
		return b[1 : 1+end], true, b[2+end:], true
	}
	i := 0
	for i < len(b) && isPlainByte(b[i]) {
		i++
	}
	if i == 0 || i < len(b) && b[i] != ' ' && !(flow && (b[i] == ',' || b[i] == '}')) {
		return nil, false, nil, false
	}
	if b[0] == '-' && i == 1 {
		return nil, false, nil, false // "-" alone: a list's item
	}
	return b[:i], false, b[i:], true
}

func isPlainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '+' || c == '-' || c == '(' || c == ')'
}

// lineEnds says whether what is left of a line is spaces, and a comment
// after one.
func lineEnds(b []byte) bool {
	t := bytes.TrimLeft(b, " ")
	return len(t) == 0 || t[0] == '#' && len(t) < len(b)
}

// validFields says whether the fields are an entry a run may hold: each
// once, a key and a value, hex where hex is asked for. Any other is
// yaml.v3's, and its error the file's.
func validFields(fields []lineField) bool {
	var seen [4]bool
	var keys, values int
	for _, f := range fields {
		var i int
		switch f.name {
		case "key_hex":
			i = 1
		case "value":
			i = 2
		case "value_hex":
			i = 3
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		if i < 2 {
			keys++
		} else {
			values++
		}
		if i == 1 || i == 3 {
			if _, err := hex.DecodeString(hexDigits(f.text)); err != nil {
				return false
			}
		}
	}
	return keys == 1 && values == 1
}

// hexDigits is hex as key_hex and value_hex take it: spaces and a 0x
// ignored.
func hexDigits(b []byte) string {
	s := string(bytes.ReplaceAll(b, []byte(" "), nil))
	if len(s) >= 2 && s[:2] == "0x" {
		s = s[2:]
	}
	return s
}

// each reads the run's entries again, in order.
func (r *lineRun) each(yield func(Entry) error) error {
	var keyNode, valueNode yaml.Node
	data := r.text
	lineNo := r.line
	for off, index := 0, r.first; off < len(data); {
		line, next := lineAt(data, off)
		indent, rest := indentOf(line)
		if len(rest) == 0 || rest[0] == '#' {
			off, lineNo = next, lineNo+1
			continue
		}
		fields, lines := lineFields(data, off, indent)
		if lines == 0 {
			return fmt.Errorf("%w: %s:%d: maps.%s[%d]: the entry read differently the second time", ErrMapInit, r.file, lineNo, r.mapName, index)
		}
		e := Entry{Line: lineNo}
		for _, f := range fields[:] {
			switch f.name {
			case "key", "value":
				n := &keyNode
				if f.name == "value" {
					n = &valueNode
				}
				*n = yaml.Node{Kind: yaml.ScalarNode, Tag: plainTag(f.text, f.quoted), Value: unsafe.String(unsafe.SliceData(f.text), len(f.text)), Line: lineNo + f.line}
				if f.name == "key" {
					e.Key = n
				} else {
					e.Value = n
				}
			case "key_hex":
				e.KeyHex, _ = hex.DecodeString(hexDigits(f.text))
				e.HasKeyHex = true
			case "value_hex":
				b, _ := hex.DecodeString(hexDigits(f.text))
				e.ValueHex = [][]byte{b}
			}
		}
		if err := yield(e); err != nil {
			return err
		}
		for range lines {
			_, next = lineAt(data, off)
			off = next
		}
		lineNo += lines
		index++
	}
	return nil
}

// plainTag is the tag yaml.v3 resolves a scalar to, as far as values
// tell them apart (a char array takes a string).
func plainTag(text []byte, quoted bool) string {
	if !quoted && isDecimal(text) {
		return "!!int"
	}
	s := string(text)
	switch {
	case quoted:
		return "!!str"
	case s == "true" || s == "false" || s == "True" || s == "False" || s == "TRUE" || s == "FALSE":
		return "!!bool"
	case s == "~" || s == "null" || s == "Null" || s == "NULL":
		return "!!null"
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return "!!float"
	}
	return "!!str"
}

// isDecimal says whether b is digits alone.
func isDecimal[T string | []byte](b T) bool {
	for i := range len(b) {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return len(b) > 0
}

// asciiLine says whether a line is printable ASCII and tabs: what a run
// takes, leaving anything YAML might refuse (control characters, broken
// UTF-8) to yaml.v3.
func asciiLine(line []byte) bool {
	for _, c := range line {
		if (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}
