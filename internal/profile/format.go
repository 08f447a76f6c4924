package profile

import (
	"encoding/json"
	"fmt"
	"io"
)

// Format is an encoding of a report.
type Format string

// The formats.
const (
	Text      Format = "text"      // the annotated source, for people
	Pprof     Format = "pprof"     // gzipped profile.proto, for go tool pprof
	Callgrind Format = "callgrind" // Callgrind's format, for callgrind_annotate and KCachegrind
	JSON      Format = "json"      // the report as it is, for other tools
)

// Formats are the formats' names, as the command takes them.
func Formats() []string {
	return []string{string(Text), string(Pprof), string(Callgrind), string(JSON)}
}

// Binary says the format is not for a terminal.
func (f Format) Binary() bool { return f == Pprof }

// Write encodes the report in format f; the view is the text's.
func Write(w io.Writer, rep *Report, f Format, v View) error {
	switch f {
	case Text:
		return WriteText(w, rep, v)
	case Pprof:
		return WritePprof(w, rep)
	case Callgrind:
		return WriteCallgrind(w, rep)
	case JSON:
		return writeJSON(w, rep)
	}
	return fmt.Errorf("profile format %q: want one of %v", f, Formats())
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write the profile as JSON: %w", err)
	}
	return nil
}
