package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/capture"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// MaxPackets is the most packets one replay takes: each packet's path
// is kept, two bytes a packet (32 MiB at the limit).
const MaxPackets = 1 << 24

// minFrame is the shortest frame the kernel's test run takes: an
// Ethernet header.
const minFrame = 14

// ErrCapture marks a capture that cannot be replayed: bad input.
var ErrCapture = badinput.New("capture")

// source gives a replay's packets one at a time, in their order: a
// capture's (stream) or synthetic traffic's (synthStream).
type source interface {
	// next is the next packet's frame, valid until the following call,
	// or io.EOF after the last.
	next() ([]byte, error)
	// done is how far the source has got, of size in all (bytes of a
	// capture, packets of synthetic traffic), for the progress.
	done() int64
	size() int64
	// skips counts the packets skipped so far, records the packets met
	// (a capture's record number, for errors).
	skips() int
	records() int
	Close() error
}

// stream reads a capture's packets one at a time, as Ethernet frames,
// skipping those too short to run and those with no Ethernet form; it
// holds one packet at a time, whatever the capture's size.
type stream struct {
	name    string
	f       *os.File
	src     capture.Source
	counted *countingReader
	read    int // records read
	skipped int
}

// countingReader counts the bytes read of the file, for the progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// openStream opens the capture at path.
func openStream(path string) (*stream, error) {
	f, err := safefs.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCapture, err)
	}
	counted := &countingReader{r: f}
	src, err := capture.Open(bufio.NewReaderSize(counted, 1<<16))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w %s: %w", ErrCapture, path, err)
	}
	return &stream{name: path, f: f, src: src, counted: counted}, nil
}

// size is the capture file's size in bytes, 0 where unknown.
func (s *stream) size() int64 {
	if fi, err := s.f.Stat(); err == nil {
		return fi.Size()
	}
	return 0
}

func (s *stream) Close() error { return s.f.Close() }

func (s *stream) done() int64 { return s.counted.n }

func (s *stream) skips() int { return s.skipped }

func (s *stream) records() int { return s.read }

// next is the next packet's frame, valid until the following call, or
// io.EOF at the capture's end.
func (s *stream) next() ([]byte, error) {
	for {
		p, err := capture.Guarded(s.src.Next)
		switch {
		case errors.Is(err, io.EOF) && len(p.Data) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			err = io.ErrUnexpectedEOF
		case errors.Is(err, capture.ErrShort):
			s.read++
			s.skipped++
			continue
		case errors.Is(err, capture.ErrNotEthernet):
			s.read++
			s.skipped++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w %s: packet %d: %w", ErrCapture, s.name, s.read+1, err)
		}
		s.read++
		if len(p.Data) < minFrame {
			s.skipped++
			continue
		}
		return p.Data, nil
	}
}
