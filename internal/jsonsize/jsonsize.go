package jsonsize

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// ErrTooLarge is returned for a document that would decode past its
// budget.
var ErrTooLarge = badinput.New("too large to decode")

// errSyntax is data the scanner cannot read as JSON; errStop ends a
// count past its budget, whatever follows.
var (
	errSyntax = errors.New("not JSON")
	errStop   = errors.New("past the budget")
)

// maxDepth is encoding/json's own bound on nesting, which it refuses
// before decoding anything.
const maxDepth = 10000

// Costs of what encoding/json makes, beyond the bytes of the values
// themselves, in bytes: a generous round figure for each.
const (
	// entryCost is a map entry's share of its groups, mapCost a map's
	// own: its header and first group of eight slots.
	entryCost = 64
	mapCost   = 512
	// baseCost is the decoder's own state, and what a type that decodes
	// itself may load once (time.Time, its zones).
	baseCost = 64 << 10
	// unmarshalerCost is what a type that decodes itself (time.Time)
	// may allocate beyond its text.
	unmarshalerCost = 128
	// growth is what a slice's elements may take while encoding/json
	// grows it an element at a time: a capacity up to twice its length,
	// and while it grows, the copy before it too.
	growth = 3
)

// Check refuses, as ErrTooLarge, data that json.Unmarshal(data, v)
// would decode into more than limit bytes (Bytes). Data that is not JSON
// is left to json.Unmarshal, which refuses it, with its own message,
// before it decodes anything.
func Check(data []byte, v any, limit int64) error {
	n, err := Bytes(data, reflect.TypeOf(v), limit)
	switch {
	case errors.Is(err, errSyntax) && !json.Valid(data):
		return nil
	case err != nil:
		return err
	case n > limit:
		return fmt.Errorf("%w: it would take more than %d MiB in memory (%d bytes of JSON)", ErrTooLarge, limit>>20, len(data))
	}
	return nil
}

// Bytes bounds, from above, the bytes json.Unmarshal(data, v) allocates
// for a v of type t (a pointer: what it points to is there already), in
// one pass over data and allocating nothing but keys with escapes: each
// element of a slice its type's size three times over (the capacity that
// grows past it, the copy it grows from), each string its length, each pointer followed its
// target's size, each map and its entries, interface and type that
// decodes itself a round figure more, and the decoder's own state. It stops counting past stop, and returns errSyntax
// for what is not JSON as it reads it.
func Bytes(data []byte, t reflect.Type, stop int64) (int64, error) {
	s := &scanner{data: data, stop: stop, n: baseCost}
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch err := s.value(t, 0); {
	case errors.Is(err, errStop):
		return s.n, nil
	case err != nil:
		return s.n, err
	}
	if s.space(); s.i != len(s.data) {
		return s.n, errSyntax
	}
	return s.n, nil
}

type scanner struct {
	data []byte
	i    int
	n    int64 // the bytes counted so far
	stop int64
	// self caches decodesItself: asked of every element of an array.
	self map[reflect.Type]bool
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself says whether t, or a pointer to it, has its own
// UnmarshalJSON or UnmarshalText.
func (s *scanner) decodesItself(t reflect.Type) bool {
	self, ok := s.self[t]
	if !ok {
		p := reflect.PointerTo(t)
		self = t.Implements(unmarshaler) || t.Implements(textUnmarshaler) || p.Implements(unmarshaler) || p.Implements(textUnmarshaler)
		if s.self == nil {
			s.self = map[reflect.Type]bool{}
		}
		s.self[t] = self
	}
	return self
}

// value counts the value at s.i decoded into a t (nil: nothing, as a
// field no key names).
func (s *scanner) value(t reflect.Type, depth int) error {
	if depth > maxDepth {
		return errSyntax
	}
	if s.n > s.stop {
		return errStop
	}
	s.space()
	if s.i >= len(s.data) {
		return errSyntax
	}
	start := s.i
	if t != nil && t.Kind() == reflect.Pointer && !bytes.HasPrefix(s.data[s.i:], []byte("null")) {
		s.n += int64(t.Elem().Size())
		return s.value(t.Elem(), depth+1)
	}
	if t != nil && t.Kind() != reflect.Interface && s.decodesItself(t) {
		err := s.skip()
		s.n += 2*int64(s.i-start) + unmarshalerCost
		return err
	}
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object(t, depth)
	case c == '[':
		return s.array(t, depth)
	case c == '"':
		if err := s.str(); err != nil {
			return err
		}
		s.n += int64(s.i - start)
		if t != nil && t.Kind() == reflect.Interface {
			s.n += 16 // the string's header, boxed
		}
	default:
		if err := s.scalar(); err != nil {
			return err
		}
		if t != nil && t.Kind() == reflect.Interface {
			s.n += 8 // a float64, boxed
		}
	}
	return nil
}

// object counts an object decoded into a struct, a map or an interface
// (a map[string]any); into anything else encoding/json skips it.
func (s *scanner) object(t reflect.Type, depth int) error {
	s.i++ // '{'
	var fields []field
	var elem reflect.Type
	switch {
	case t == nil:
	case t.Kind() == reflect.Struct:
		fields = fieldsOf(t)
	case t.Kind() == reflect.Map:
		elem = t.Elem()
		s.n += mapCost
	case t.Kind() == reflect.Interface:
		elem = t // any
		s.n += mapCost
	}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.space()
		keyStart := s.i
		if err := s.str(); err != nil {
			return err
		}
		key := s.data[keyStart:s.i]
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return errSyntax
		}
		s.i++
		var into reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			if f, ok := lookup(fields, key); ok {
				into = f.typ
				s.n += f.embedded
			}
		case elem != nil:
			into = elem
			keySize := int64(16) // a string's header, for a map[string]any
			if t.Kind() == reflect.Map {
				keySize = int64(t.Key().Size())
			}
			s.n += int64(len(key)) + 2*(keySize+int64(elem.Size())) + entryCost
		}
		if err := s.value(into, depth+1); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errSyntax
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// array counts an array decoded into a slice, an array or an interface
// (a []any).
func (s *scanner) array(t reflect.Type, depth int) error {
	s.i++ // '['
	var elem reflect.Type
	var each int64
	switch {
	case t == nil:
	case t.Kind() == reflect.Slice:
		elem, each = t.Elem(), growth*int64(t.Elem().Size())
	case t.Kind() == reflect.Array:
		elem = t.Elem() // in place
	case t.Kind() == reflect.Interface:
		elem, each = t, growth*int64(t.Size())
	}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.n += each
		if err := s.value(elem, depth+1); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errSyntax
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// str moves past a string, its quotes and escapes.
func (s *scanner) str() error {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return errSyntax
	}
	for s.i++; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return nil
		}
	}
	return errSyntax
}

// scalar moves past a number, true, false or null.
func (s *scanner) scalar() error {
	start := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return errSyntax
	}
	return nil
}

// skip moves past one value of any type, counting nothing: what
// encoding/json decodes by itself, or skips.
func (s *scanner) skip() error {
	depth := 0
	for {
		s.space()
		if s.i >= len(s.data) {
			return errSyntax
		}
		switch c := s.data[s.i]; c {
		case '{', '[':
			if depth++; depth > maxDepth {
				return errSyntax
			}
			s.i++
			continue
		case '}', ']':
			if depth == 0 {
				return errSyntax
			}
			depth--
			s.i++
		case ',', ':':
			s.i++
			continue
		case '"':
			if err := s.str(); err != nil {
				return err
			}
		default:
			if err := s.scalar(); err != nil {
				return err
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// field is a struct's field as encoding/json names it, with its type and
// the size of the embedded structs a pointer to which it allocates.
type field struct {
	name     string
	typ      reflect.Type
	embedded int64
}

var cache sync.Map // reflect.Type -> []field

// fieldsOf is t's fields as encoding/json decodes them: by their tag's
// name or their own, exported ones, those of embedded structs promoted,
// the shallowest first.
func fieldsOf(t reflect.Type) []field {
	if f, ok := cache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	seen := map[string]bool{}
	type level struct {
		t        reflect.Type
		embedded int64
	}
	current, visited := []level{{t: t}}, map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []level
		var names []string
		for _, l := range current {
			if visited[l.t] {
				continue
			}
			visited[l.t] = true
			for i := range l.t.NumField() {
				sf := l.t.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				ft := sf.Type
				if sf.Anonymous && name == "" {
					embedded := l.embedded
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
						embedded += int64(ft.Size())
					}
					if ft.Kind() == reflect.Struct {
						next = append(next, level{t: ft, embedded: embedded})
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				if name == "" {
					name = sf.Name
				}
				if !seen[name] {
					out = append(out, field{name: name, typ: sf.Type, embedded: l.embedded})
					names = append(names, name)
				}
			}
		}
		for _, n := range names {
			seen[n] = true
		}
		current = next
	}
	cache.Store(t, out)
	return out
}

// lookup finds the field a key names: its name exactly, else as
// encoding/json folds case. A key with escapes is read as JSON first.
func lookup(fields []field, raw []byte) (field, bool) {
	key := raw[1 : len(raw)-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		var k string
		if json.Unmarshal(raw, &k) != nil {
			return field{}, false
		}
		key = []byte(k)
	}
	for _, f := range fields {
		if string(key) == f.name {
			return f, true
		}
	}
	for _, f := range fields {
		if equalFold(key, f.name) {
			return f, true
		}
	}
	return field{}, false
}

// equalFold is bytes.EqualFold, allocating only for a key that is not
// ASCII: asked of every key of every object.
func equalFold(key []byte, name string) bool {
	if bytes.ContainsFunc(key, notASCII) || strings.ContainsFunc(name, notASCII) {
		return strings.EqualFold(string(key), name)
	}
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if lower(c) != lower(name[i]) {
			return false
		}
	}
	return true
}

func notASCII(r rune) bool { return r >= 0x80 }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
