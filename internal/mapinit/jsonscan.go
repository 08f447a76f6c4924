package mapinit

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// jsonScanner reads JSON tokens as encoding/json's Decoder.Token does
// (delimiters, strings, json.Number, bools, nil; colons and commas
// checked and left out), some ten times faster: Token allocates an
// interface and rescans for every token, and took 4.6 s for a file of a
// million entries here. Strings without escapes are read in place; a
// stream is read through a buffer that grows only for a token longer than
// it, up to maxJSONToken.
type jsonScanner struct {
	r    io.Reader // nil: buf is all of it
	buf  []byte
	pos  int
	base int64 // offset in the input of buf[0]
	eof  bool
	err  error
	// stack holds the open containers, each '{' or '['; state is what
	// the innermost expects next.
	stack []byte
	state scanState
}

type scanState uint8

const (
	scanValue      scanState = iota // a value (at the top, or after ':' or '[')
	scanKeyOrEnd                    // a key or '}', after '{'
	scanKey                         // a key, after ','
	scanColon                       // ':'
	scanCommaOrEnd                  // ',' or the container's end
	scanValueOrEnd                  // a value or ']', after '['
	scanDone                        // the top value read
)

// maxJSONToken bounds a token of a stream, a string say.
const maxJSONToken = 16 << 20

// jsonSyntaxError is a JSON text that is not one, at an offset.
type jsonSyntaxError struct {
	msg string
	off int64
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("%s (byte %d)", e.msg, e.off) }

func newJSONScanner(data []byte) *jsonScanner { return &jsonScanner{buf: data} }

func newJSONStream(r io.Reader) *jsonScanner {
	return &jsonScanner{r: r, buf: make([]byte, 0, 1<<20)}
}

// InputOffset is the offset of the end of the last token read.
func (s *jsonScanner) InputOffset() int64 { return s.base + int64(s.pos) }

func (s *jsonScanner) syntax(format string, args ...any) error {
	if s.err == nil {
		s.err = &jsonSyntaxError{msg: fmt.Sprintf(format, args...), off: s.InputOffset()}
	}
	return s.err
}

// fill reads more of the stream, keeping buf[pos:]; false at its end.
func (s *jsonScanner) fill() bool {
	if s.r == nil || s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.base += int64(s.pos)
		s.buf, s.pos = s.buf[:n], 0
	}
	if len(s.buf) == cap(s.buf) {
		if cap(s.buf) >= maxJSONToken {
			s.syntax("a token of more than %d bytes", maxJSONToken)
			return false
		}
		s.buf = append(make([]byte, 0, 2*cap(s.buf)), s.buf...)
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err == io.EOF {
		s.eof = true
	} else if err != nil {
		s.err = err
		return false
	}
	return n > 0 || !s.eof
}

// endOfInput is what peek gives at the end.
const endOfInput = -1

// peek is the next byte that is not white space, or endOfInput.
func (s *jsonScanner) peek() int {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return int(c)
			}
		}
		if !s.fill() {
			return endOfInput
		}
	}
}

// More says whether the container holds another element.
func (s *jsonScanner) More() bool {
	c := s.peek()
	if c == ',' && s.state == scanCommaOrEnd {
		return true
	}
	return c != endOfInput && c != ']' && c != '}' && s.err == nil
}

// Token reads the next token.
func (s *jsonScanner) Token() (json.Token, error) {
	kind, text, err := s.next()
	if err != nil {
		return nil, err
	}
	switch kind {
	case '"':
		return string(text), nil
	case '0':
		return json.Number(text), nil
	case 't', 'f':
		return kind == 't', nil
	case 'n':
		return nil, nil
	}
	return json.Delim(kind), nil
}

// next reads the next token: its kind, one of "{}[" and "]", '"' for a
// string, '0' for a number, 't', 'f' and 'n' for true, false and null;
// and a string's or a number's text, valid until the next call.
func (s *jsonScanner) next() (byte, []byte, error) {
	if s.err != nil {
		return 0, nil, s.err
	}
	c, err := s.tokenStart()
	if err != nil {
		return 0, nil, err
	}
	switch c {
	case '{', '[':
		return s.open(byte(c))
	case '}', ']':
		return s.close(byte(c))
	case '"':
		text, err := s.str()
		if err != nil {
			return 0, nil, err
		}
		if s.state == scanKeyOrEnd || s.state == scanKey {
			s.state = scanColon
		} else {
			s.afterValue()
		}
		return '"', text, nil
	}
	if s.state != scanValue && s.state != scanValueOrEnd {
		return 0, nil, s.syntax("want a key, not %q", rune(c))
	}
	kind, text, err := s.scalar()
	if err != nil {
		return 0, nil, err
	}
	s.afterValue()
	return kind, text, nil
}

// tokenStart reads past the separator the state expects before the next
// token (':' after a key, ',' between elements) and gives the token's
// first byte; io.EOF where the input ends after a whole value, a syntax
// error where it ends inside one.
func (s *jsonScanner) tokenStart() (int, error) {
	c := s.peek()
	if c == endOfInput && s.state != scanDone && (len(s.stack) > 0 || s.state != scanValue) {
		if s.err != nil {
			return 0, s.err
		}
		return 0, s.syntax("the JSON ends early")
	}
	switch s.state {
	case scanColon:
		if c != ':' {
			return 0, s.syntax("want ':' after a key")
		}
		s.pos++
		s.state, c = scanValue, s.peek()
	case scanCommaOrEnd:
		switch {
		case c == ',':
			s.pos++
			s.state, c = scanValue, s.peek()
			if s.stack[len(s.stack)-1] == '{' {
				s.state = scanKey
			}
		case c != '}' && c != ']':
			return 0, s.syntax("want ',' or the end of the container, not %q", rune(c))
		}
	case scanDone:
		if c == endOfInput && s.err == nil {
			return 0, io.EOF
		}
		// JSON lines: one value after another.
		s.state = scanValue
	}
	if c == endOfInput {
		if s.err != nil {
			return 0, s.err
		}
		if len(s.stack) == 0 && s.state == scanValue {
			return 0, io.EOF
		}
		return 0, s.syntax("the JSON ends early")
	}
	return c, nil
}

// open reads a container's opening '{' or '[', where a value may be.
func (s *jsonScanner) open(c byte) (byte, []byte, error) {
	if s.state != scanValue && s.state != scanValueOrEnd {
		return 0, nil, s.syntax("want a key, not %q", rune(c))
	}
	s.pos++
	s.stack = append(s.stack, c)
	s.state = scanValueOrEnd
	if c == '{' {
		s.state = scanKeyOrEnd
	}
	return c, nil, nil
}

// close reads a container's closing '}' or ']', which must match the
// innermost open one and end it where it may end.
func (s *jsonScanner) close(c byte) (byte, []byte, error) {
	open := byte('{')
	if c == ']' {
		open = '['
	}
	if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open ||
		s.state != scanCommaOrEnd && s.state != scanKeyOrEnd && s.state != scanValueOrEnd {
		return 0, nil, s.syntax("unexpected %q", rune(c))
	}
	s.pos++
	s.stack = s.stack[:len(s.stack)-1]
	s.afterValue()
	return c, nil, nil
}

// afterValue sets what follows a value: ',' or the end of its container,
// or nothing more at the top.
func (s *jsonScanner) afterValue() {
	s.state = scanCommaOrEnd
	if len(s.stack) == 0 {
		s.state = scanDone
	}
}

// more makes buf hold index i, reading on; i moves with what buf keeps.
// false at the end of the input.
func (s *jsonScanner) more(i *int) bool {
	for *i >= len(s.buf) {
		start := s.pos
		ok := s.fill()
		*i -= start - s.pos // fill keeps buf[pos:], at the start, even at the end
		if !ok {
			return false
		}
	}
	return true
}

// str reads a string at pos: its text in place, or unescaped.
func (s *jsonScanner) str() ([]byte, error) {
	for i := s.pos + 1; ; i++ {
		if !s.more(&i) {
			return nil, s.syntax("a string ends early")
		}
		switch c := s.buf[i]; {
		case c == '"':
			text := s.buf[s.pos+1 : i]
			if !utf8.Valid(text) {
				return s.escaped() // as encoding/json: U+FFFD for each bad byte
			}
			s.pos = i + 1
			return text, nil
		case c == '\\':
			return s.escaped()
		case c < 0x20:
			return nil, s.syntax("a control character in a string")
		}
	}
}

// escaped reads a string at pos that holds escapes, as encoding/json does.
func (s *jsonScanner) escaped() ([]byte, error) {
	for i := s.pos + 1; ; {
		if !s.more(&i) {
			return nil, s.syntax("a string ends early")
		}
		switch s.buf[i] {
		case '\\':
			i += 2
		case '"':
			var str string
			if err := json.Unmarshal(s.buf[s.pos:i+1], &str); err != nil {
				return nil, s.syntax("a string: %v", err)
			}
			s.pos = i + 1
			return []byte(str), nil
		default:
			i++
		}
	}
}

// scalar reads a number, true, false or null at pos: a number as far as
// JSON's grammar takes it, as encoding/json does ("00" is two).
func (s *jsonScanner) scalar() (byte, []byte, error) {
	i := s.pos
	at := func() int { // the byte at i, or endOfInput
		if !s.more(&i) {
			return endOfInput
		}
		return int(s.buf[i])
	}
	digit := func(c int) bool { return c >= '0' && c <= '9' }
	digits := func() int {
		n := 0
		for digit(at()) {
			i, n = i+1, n+1
		}
		return n
	}
	c := at()
	if c >= 'a' && c <= 'z' {
		for c := at(); c >= 'a' && c <= 'z'; c = at() {
			i++
		}
		word := s.buf[s.pos:i]
		switch string(word) {
		case "true", "false", "null":
			s.pos = i
			return word[0], nil, nil
		}
		return 0, nil, s.syntax("%q is not a value", word)
	}
	if c == '-' {
		i++
	}
	if c := at(); c == '0' {
		i++
	} else if digits() == 0 {
		return 0, nil, s.syntax("%q is not a value", s.buf[s.pos:min(i+1, len(s.buf))])
	}
	if at() == '.' {
		i++
		if digits() == 0 {
			return 0, nil, s.syntax("a number's fraction has no digits")
		}
	}
	if c := at(); c == 'e' || c == 'E' {
		i++
		if c := at(); c == '+' || c == '-' {
			i++
		}
		if digits() == 0 {
			return 0, nil, s.syntax("a number's exponent has no digits")
		}
	}
	text := s.buf[s.pos:i]
	s.pos = i
	return '0', text, nil
}
