package mapinit

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// JSON map-init files and files of entries are read as a stream of tokens
// (jsonscan.go): no tree of the document is built. A map's
// list of entries in the map-init file is checked entry by entry and kept
// as the file's bytes, to be read again when the entries are resolved;
// another file of entries (bpftool's dump, a JSON list or JSON lines of
// entries) is read only then, from the file. A key or value (a struct, an
// array) becomes a small yaml.Node tree, as YAML's would, of at most
// maxValueNodes nodes.

// maxValueNodes bounds the nodes of one key or value, or of a section of
// variables: a map's value is at most some MB (KMALLOC_MAX_SIZE).
const maxValueNodes = 1 << 20

// maxValueDepth bounds how deep a value nests.
const maxValueDepth = 64

// errNotJSON marks a file that began as JSON and is not: read as YAML.
var errNotJSON = errors.New("not JSON")

// isJSON says whether data is a JSON object: its first character "{",
// then a string or the end of it (YAML's flow mappings, {maps: ...}, are
// YAML's to read).
func isJSON(data []byte) bool {
	b := bytes.TrimLeft(data, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return len(b) > 0 && (b[0] == '"' || b[0] == '}')
}

// jsonReader reads the tokens of a JSON text, and says where each is: a
// line of the map-init file held in memory, or the entry being read of
// another file (entry set).
type jsonReader struct {
	file string
	data []byte // nil for another file, read as a stream
	dec  *jsonScanner
	// line is counted up to offset at of data.
	line, at int
	// entryNo, if set, is the number of the entry being read of another
	// file: it says where instead of the line.
	entryNo *int
	// key and value hold an entry's scalar key and value, valid until
	// the next entry: a million entries make no nodes.
	key, value yaml.Node
	nodes      int  // of the value being read
	owned      bool // data may be kept, not copied
}

// entryPlace names an entry in messages: maps.NAME[I], or entry N of
// another file; made into text only for one.
type entryPlace struct {
	mapName string
	index   int
	file    bool
}

func (p entryPlace) String() string {
	if p.file {
		return fmt.Sprintf("entry %d", p.index)
	}
	return fmt.Sprintf("maps.%s[%d]", p.mapName, p.index)
}

func newJSONReader(file string, data []byte, line int) *jsonReader {
	return &jsonReader{file: file, data: data, dec: newJSONScanner(data), line: line}
}

// lineNow is the line of the decoder's position in data.
func (r *jsonReader) lineNow() int {
	off := min(int(r.dec.InputOffset()), len(r.data))
	if off > r.at {
		r.line += bytes.Count(r.data[r.at:off], []byte("\n"))
		r.at = off
	}
	return r.line
}

// place is "FILE:LINE", or "FILE: entry N" in another file.
func (r *jsonReader) place() string {
	if r.entryNo != nil {
		return fmt.Sprintf("%s: entry %d", r.file, *r.entryNo)
	}
	return fmt.Sprintf("%s:%d", r.file, r.lineNow())
}

func (r *jsonReader) fail(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrMapInit, r.place(), fmt.Sprintf(format, args...))
}

// failAt is a fail of the form entryFields takes, whose message names
// the entry.
func (r *jsonReader) failAt(line int, format string, args ...any) error {
	if r.entryNo != nil {
		return fmt.Errorf("%w: %s: %s", ErrMapInit, r.file, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, r.file, line, fmt.Sprintf(format, args...))
}

// token is the next token; the end of the text is an error.
func (r *jsonReader) token() (json.Token, error) {
	t, err := r.dec.Token()
	if err == io.EOF {
		return nil, r.fail("the JSON ends early")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMapInit, r.place(), err)
	}
	return t, nil
}

// next is the scanner's next token, its error the file's.
func (r *jsonReader) next() (byte, []byte, error) {
	kind, text, err := r.dec.next()
	if err == io.EOF {
		return 0, nil, r.fail("the JSON ends early")
	}
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s: %w", ErrMapInit, r.place(), err)
	}
	return kind, text, nil
}

// delim reads the delimiter d, or says that what is there is not what
// is wanted.
func (r *jsonReader) delim(d json.Delim, want string) error {
	t, err := r.token()
	if err != nil {
		return err
	}
	if t != d {
		return r.fail("want %s", want)
	}
	return nil
}

// parseJSONMapInit reads a JSON map-init file as a stream. A file that is
// not JSON after all (a YAML flow mapping of quoted keys, say) is read as
// YAML, where it is that.
func parseJSONMapInit(name string, data []byte, owned bool) (*File, error) {
	mi, err := jsonMapInit(name, data, owned)
	var syntax *jsonSyntaxError
	if err != nil && (errors.As(err, &syntax) || errors.Is(err, errNotJSON)) {
		if y, yerr := parseYAMLMapInit(name, data, owned); yerr == nil {
			return y, nil
		}
	}
	return mi, err
}

func jsonMapInit(name string, data []byte, owned bool) (*File, error) {
	r := newJSONReader(name, data, 1)
	r.owned = owned
	mi := &File{Name: name}
	if err := r.delim('{', "a JSON object"); err != nil {
		return nil, err
	}
	for r.dec.More() {
		t, err := r.token()
		if err != nil {
			return nil, err
		}
		switch key, _ := t.(string); key {
		case "maps":
			err = r.maps(mi)
		case "variables", "max_entries":
			err = r.section(mi, key)
		default:
			err = r.fail(`unknown key %q: want "maps", "variables" and "max_entries"`, key)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := r.token(); err != nil { // "}"
		return nil, err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: %w", r.fail("more after the JSON object"), errNotJSON)
	}
	return mi, nil
}

// section reads variables or max_entries, as YAML's are.
func (r *jsonReader) section(mi *File, key string) error {
	section, err := r.valueNode()
	if err != nil {
		return err
	}
	if section.Kind != yaml.MappingNode {
		return r.failAt(section.Line, "%s: want a mapping by name", key)
	}
	if key == "max_entries" {
		return mi.parseSizes(section, r.failAt)
	}
	for j := 0; j+1 < len(section.Content); j += 2 {
		name, value := section.Content[j], section.Content[j+1]
		mi.Variables = append(mi.Variables, Variable{Name: name.Value, Value: value, Line: name.Line})
	}
	return nil
}

// maps reads the maps section: a list of entries for each map, checked
// and kept as text; or another file of them.
func (r *jsonReader) maps(mi *File) error {
	if err := r.delim('{', "maps: a mapping by name"); err != nil {
		return err
	}
	for r.dec.More() {
		t, err := r.token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		me := Map{Name: name, Line: r.lineNow()}
		// The list's text begins at its "[", past the name's colon.
		start := int(r.dec.InputOffset())
		for start < len(r.data) && strings.IndexByte(" \t\r\n:", r.data[start]) >= 0 {
			start++
		}
		startLine := r.lineNow() + bytes.Count(r.data[r.dec.InputOffset():start], []byte("\n"))
		if t, err = r.token(); err != nil {
			return err
		}
		want := fmt.Sprintf(`maps.%s: want a list of entries, or {"bpftool": FILE} or {"entries": FILE}`, name)
		switch t {
		case json.Delim('{'):
			r.nodes = 0
			node, err := r.valueFrom('{', nil, 0, nil)
			if err != nil {
				return err
			}
			src, ok := fileSourceNode(node)
			if !ok {
				return r.fail("%s", want)
			}
			stream, err := mi.fileStream(name, src, me.Line)
			if err != nil {
				return err
			}
			me.parts = []entryPart{{stream: stream}}
		case json.Delim('['):
			run := &jsonRun{file: mi.Name, mapName: name, line: startLine}
			for ; r.dec.More(); run.count++ {
				if _, err := r.entry(entryPlace{mapName: name, index: run.count}); err != nil {
					return err
				}
			}
			if _, err := r.token(); err != nil { // "]"
				return err
			}
			run.text = r.data[start:r.dec.InputOffset()]
			if !r.owned {
				run.text = bytes.Clone(run.text)
			}
			me.parts = []entryPart{{stream: run}}
		default:
			return r.fail("%s", want)
		}
		mi.Maps = append(mi.Maps, me)
	}
	_, err := r.token() // "}"
	return err
}

// entry reads one entry, a JSON object of the fields a YAML one has.
func (r *jsonReader) entry(place entryPlace) (Entry, error) {
	kind, _, err := r.next()
	if err != nil {
		return Entry{}, err
	}
	if kind != '{' {
		return Entry{}, r.fail("%s: want a mapping with key/key_hex/keys and value/value_hex", place)
	}
	return r.entryFields(place)
}

// entryFields reads an entry's fields, its "{" read, and checks them
// together.
func (r *jsonReader) entryFields(place entryPlace) (Entry, error) {
	e := Entry{Line: r.lineNow()}
	for r.dec.More() {
		_, text, err := r.next()
		if err != nil {
			return e, err
		}
		switch string(text) {
		case "key", "value":
			into := &r.key
			if string(text) == "value" {
				into = &r.value
			}
			kind, text, err := r.next()
			if err != nil {
				return e, err
			}
			r.nodes = 0
			v, err := r.valueFrom(kind, text, 0, into)
			if err != nil {
				return e, err
			}
			if into == &r.key {
				e.Key = v
			} else {
				e.Value = v
			}
		default:
			// The other fields as YAML's, one at a time.
			field := string(text)
			v, err := r.valueNode()
			if err != nil {
				return e, err
			}
			item := &yaml.Node{Kind: yaml.MappingNode, Line: v.Line, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: field, Line: v.Line}, v}}
			one, err := entryFields(item, place.String(), r.failAt)
			if err != nil {
				return e, err
			}
			e = mergeEntry(e, one)
		}
	}
	if _, _, err := r.next(); err != nil { // "}"
		return e, err
	}
	if problem := entryProblem(e); problem != "" {
		return e, r.failAt(e.Line, "%s: %s", place, problem)
	}
	return e, nil
}

// mergeEntry adds to e the one field one was read with.
func mergeEntry(e, one Entry) Entry {
	switch {
	case one.HasKeyHex:
		e.KeyHex, e.HasKeyHex = one.KeyHex, true
	case one.ValueHex != nil:
		e.ValueHex = one.ValueHex
	case one.HasRange:
		e.HasRange, e.From, e.To = true, one.From, one.To
	case one.Repeat != 0:
		e.Repeat = one.Repeat
	}
	return e
}

// valueNode reads the next value as a yaml.Node tree.
func (r *jsonReader) valueNode() (*yaml.Node, error) {
	kind, text, err := r.next()
	if err != nil {
		return nil, err
	}
	r.nodes = 0
	return r.valueFrom(kind, text, 0, nil)
}

// valueFrom reads the value whose first token is kind and text, into
// into if not nil (a scalar), at most maxValueNodes nodes in all and
// maxValueDepth deep.
func (r *jsonReader) valueFrom(kind byte, text []byte, depth int, into *yaml.Node) (*yaml.Node, error) {
	if r.nodes++; r.nodes > maxValueNodes || depth > maxValueDepth {
		return nil, r.fail("a value of more than %d nodes, or nested deeper than %d", maxValueNodes, maxValueDepth)
	}
	n := into
	if n == nil || kind == '{' || kind == '[' {
		n = new(yaml.Node)
	}
	*n = yaml.Node{Kind: yaml.ScalarNode, Line: r.lineNow()}
	switch kind {
	case '{', '[':
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		if kind == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for r.dec.More() {
			if n.Kind == yaml.MappingNode {
				_, key, err := r.next()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(key), Line: r.lineNow()})
			}
			k, t, err := r.next()
			if err != nil {
				return nil, err
			}
			v, err := r.valueFrom(k, t, depth+1, nil)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, _, err := r.next(); err != nil {
			return nil, err
		}
	case '"':
		n.Tag, n.Value, n.Style = "!!str", string(text), yaml.DoubleQuotedStyle
	case '0':
		n.Tag, n.Value = "!!int", string(text)
		if !isDecimal(text) && (len(text) < 2 || text[0] != '-' || !isDecimal(text[1:])) {
			n.Tag = "!!float" // a fraction or an exponent
		}
	case 't', 'f':
		n.Tag, n.Value = "!!bool", map[byte]string{'t': "true", 'f': "false"}[kind]
	case 'n':
		n.Tag, n.Value = "!!null", "null"
	default:
		return nil, r.fail("want a value, not %q", kind)
	}
	return n, nil
}

// jsonRun is a map's list of entries in a JSON map-init file, its text
// kept to be read again.
type jsonRun struct {
	file, mapName string
	text          []byte // from "[" to "]"
	line          int
	count         int
}

func (j *jsonRun) each(yield func(Entry) error) error {
	r := newJSONReader(j.file, j.text, j.line)
	if _, err := r.token(); err != nil {
		return err
	}
	for i := 0; r.dec.More(); i++ {
		e, err := r.entry(entryPlace{mapName: j.mapName, index: i})
		if err != nil {
			return err
		}
		if err := yield(e); err != nil {
			return err
		}
	}
	return nil
}

// fileSource is another file a map's entries are in: {bpftool: FILE},
// `bpftool map dump ... -j`'s output, or {entries: FILE}, a JSON list of
// entries as a map-init file writes them, or JSON lines of them.
type fileSource struct {
	kind, path string
}

// fileSourceNode reads {bpftool: FILE} or {entries: FILE}.
func fileSourceNode(n *yaml.Node) (fileSource, bool) {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[1].Kind != yaml.ScalarNode || n.Content[1].Value == "" {
		return fileSource{}, false
	}
	kind := n.Content[0].Value
	return fileSource{kind: kind, path: n.Content[1].Value}, kind == "bpftool" || kind == "entries"
}

// fileStream is the stream of src's entries, FILE relative to the
// map-init file, which must be a file xdpmicro may read.
func (mi *File) fileStream(mapName string, src fileSource, line int) (entryStream, error) {
	path := src.path
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(mi.Name), path)
	}
	f, err := safefs.Open(path)
	if err != nil {
		return nil, mi.fail(line, "maps.%s: %v", mapName, err)
	}
	f.Close()
	return &fileEntries{kind: src.kind, path: path, mapName: mapName}, nil
}

// fileEntries reads another file's entries, as they are resolved.
type fileEntries struct {
	kind, path, mapName string
}

func (fe *fileEntries) each(yield func(Entry) error) error {
	f, err := safefs.Open(fe.path)
	if err != nil {
		return fmt.Errorf("%w: maps.%s: %w", ErrMapInit, fe.mapName, err)
	}
	defer f.Close()
	s := &entryFile{jsonReader{file: fe.path, dec: newJSONStream(f)}, &Source{File: fe.path}, 0}
	s.entryNo = &s.n
	if fe.kind == "bpftool" {
		return s.bpftool(yield)
	}
	return s.entries(yield)
}

// entryFile is another file of entries being read.
type entryFile struct {
	jsonReader
	src *Source
	n   int // the entry being read, from 1
}

// entries reads a JSON list of entries, or JSON lines of them.
func (s *entryFile) entries(yield func(Entry) error) error {
	t, err := s.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return s.fail("%v", err)
	}
	one := func(t json.Token) error {
		s.n++
		if t != json.Delim('{') {
			return s.fail("want an entry, a JSON object of key/key_hex/keys and value/value_hex")
		}
		e, err := s.entryFields(entryPlace{index: s.n, file: true})
		if err != nil {
			return err
		}
		e.Line, e.Src = s.n, s.src
		return yield(e)
	}
	if t == json.Delim('[') {
		for s.dec.More() {
			t, err := s.token()
			if err != nil {
				return err
			}
			if err := one(t); err != nil {
				return err
			}
		}
		_, err := s.token()
		return err
	}
	for {
		if err := one(t); err != nil {
			return err
		}
		if t, err = s.dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return s.fail("%v", err)
		}
	}
}

// bpftool reads `bpftool map dump -j`: a list of {"key": ["0x05", ...],
// "value": [...]}, or "values": [{"cpu": 0, "value": [...]}, ...] for a
// per-CPU map; with BTF, "formatted" besides, left aside: the bytes say
// the entry exactly, whatever the BTF of the map dumped.
func (s *entryFile) bpftool(yield func(Entry) error) error {
	if err := s.delim('[', "bpftool map dump's JSON (-j): a list of entries"); err != nil {
		return err
	}
	for s.dec.More() {
		s.n++
		if err := s.delim('{', `an entry, {"key": [...], "value": [...]}`); err != nil {
			return err
		}
		e := Entry{Line: s.n, Src: s.src}
		for s.dec.More() {
			t, err := s.token()
			if err != nil {
				return err
			}
			switch field, _ := t.(string); field {
			case "key":
				if e.KeyHex, err = s.hexArray(); err != nil {
					return err
				}
				e.HasKeyHex = true
			case "value":
				b, err := s.hexArray()
				if err != nil {
					return err
				}
				e.ValueHex = [][]byte{b}
			case "values":
				if e.ValueHex, err = s.perCPU(); err != nil {
					return err
				}
			default:
				if _, err := s.valueNode(); err != nil {
					return err
				}
			}
		}
		if _, err := s.token(); err != nil {
			return err
		}
		if e.ValueHex == nil {
			return s.fail(`no "value" or "values"`)
		}
		if err := yield(e); err != nil {
			return err
		}
	}
	_, err := s.token()
	return err
}

// hexArray reads ["0x05", "0x00", ...], bytes as bpftool writes them.
func (s *entryFile) hexArray() ([]byte, error) {
	if err := s.delim('[', `a list of bytes in hex, ["0x05", ...]`); err != nil {
		return nil, err
	}
	var b []byte
	for s.dec.More() {
		t, err := s.token()
		if err != nil {
			return nil, err
		}
		str, _ := t.(string)
		x, herr := hex.DecodeString(strings.TrimPrefix(str, "0x"))
		if herr != nil || len(x) != 1 {
			return nil, s.fail("%q is not a byte in hex (\"0x05\")", str)
		}
		b = append(b, x[0])
	}
	_, err := s.token()
	return b, err
}

// perCPU reads [{"cpu": 0, "value": [...]}, ...] into a value for each
// CPU, by its number; a CPU not given is zeros.
func (s *entryFile) perCPU() ([][]byte, error) {
	const want = `values: a list of {"cpu": N, "value": [...]}`
	if err := s.delim('[', want); err != nil {
		return nil, err
	}
	var values [][]byte
	for s.dec.More() {
		if err := s.delim('{', want); err != nil {
			return nil, err
		}
		cpu := -1
		var value []byte
		for s.dec.More() {
			t, err := s.token()
			if err != nil {
				return nil, err
			}
			switch field, _ := t.(string); field {
			case "cpu":
				n, err := s.token()
				if err != nil {
					return nil, err
				}
				num, _ := n.(json.Number)
				c, cerr := num.Int64()
				if cerr != nil || c < 0 || c >= 1<<16 {
					return nil, s.fail("values: cpu %v is not a CPU's number", n)
				}
				cpu = int(c)
			case "value":
				if value, err = s.hexArray(); err != nil {
					return nil, err
				}
			default:
				if _, err := s.valueNode(); err != nil {
					return nil, err
				}
			}
		}
		if _, err := s.token(); err != nil {
			return nil, err
		}
		if cpu < 0 || value == nil {
			return nil, s.fail("want %s", want)
		}
		for len(values) <= cpu {
			values = append(values, nil)
		}
		values[cpu] = value
	}
	if _, err := s.token(); err != nil {
		return nil, err
	}
	for i, v := range values {
		if v == nil {
			values[i] = make([]byte, len(values[len(values)-1]))
		}
	}
	return values, nil
}
