package packets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/xdpmicro/xdpmicro/internal/capture"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// ReadFiles reads the cases of --packets' arguments, in order: each is a
// file or a glob. A glob (an argument with *, ? or [ that names no file)
// is expanded here, its matches sorted, so that it works quoted; one that
// matches nothing is an error. Each file is a packet case file or a raw
// frame, as IsCaseFile tells. A raw frame is one case named after its
// file (see ParseRaw); two frames of one name are an error. Errors wrap
// ErrPacketFile, or ErrLimit for more than MaxCases cases or MaxFrameBytes
// of frames in all, a file at a time.
func ReadFiles(args []string) ([]Case, error) {
	var cases []Case
	var kept tally
	frames := make(map[string]string) // a raw frame's case name: its file
	for _, arg := range args {
		paths, err := expand(arg)
		if err != nil {
			return nil, err
		}
		if len(paths) > MaxCases {
			return nil, fmt.Errorf("%w: %q matches %d files, more than %d cases", ErrLimit, arg, len(paths), MaxCases)
		}
		for _, path := range paths {
			data, err := safefs.ReadFile(path, MaxCaseFile)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrPacketFile, err)
			}
			fromFile, raw, err := parseAny(path, data)
			if err != nil {
				return nil, err
			}
			if err := kept.add(fromFile...); err != nil {
				return nil, fmt.Errorf("%w (at %q)", err, path)
			}
			if raw {
				name := fromFile[0].Name
				if first, ok := frames[name]; ok {
					return nil, &fileError{file: first + " and " + path, msg: fmt.Sprintf("both name case %q: rename one", name)}
				}
				frames[name] = path
			}
			cases = append(cases, fromFile...)
		}
	}
	return cases, nil
}

// parseAny parses one file's content as ReadFiles takes it: a case
// file, or a raw frame (raw) as IsCaseFile tells; a capture is refused.
func parseAny(path string, data []byte) (cases []Case, raw bool, err error) {
	if isCaptureFile(path, data) {
		return nil, false, &fileError{file: path, msg: "a pcap or pcapng capture: give it to --pcap"}
	}
	if IsCaseFile(path, data) {
		cases, err := ParseFile(path, data)
		if err != nil {
			return nil, false, caseFileError(path, data, err)
		}
		return cases, false, nil
	}
	c, err := ParseRaw(path, data)
	if err != nil {
		return nil, true, err
	}
	return []Case{c}, true, nil
}

// expand returns the files an argument names: itself, unless it names no
// file and has glob characters, then its matches, sorted.
func expand(arg string) ([]string, error) {
	if _, err := os.Lstat(arg); err == nil || !strings.ContainsAny(arg, `*?[`) {
		return []string{arg}, nil
	}
	matches, err := filepath.Glob(arg)
	switch {
	case err != nil:
		return nil, &fileError{file: arg, msg: fmt.Sprintf("not a glob: %v", err)}
	case len(matches) == 0:
		return nil, &fileError{file: arg, msg: "matches no file"}
	}
	slices.Sort(matches)
	return matches, nil
}

// ParseRaw makes a raw frame, the bytes of one Ethernet frame without FCS
// as `bpftool prog run ... data_in FILE` takes them, one case: named after
// the file without its extension (fizz.bin: fizz), summarized as a
// capture's packets are, expecting nothing. The kernel's test run refuses
// a frame shorter than an Ethernet header (14 bytes), so that is an error
// here; a longer frame cut anywhere is taken as it is, as the built-in
// case short is. Errors wrap ErrPacketFile.
func ParseRaw(path string, data []byte) (Case, error) {
	fail := func(format string, args ...any) (Case, error) {
		return Case{}, &fileError{file: path, msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(data) == 0:
		return fail("empty file: a raw frame needs at least an Ethernet header (%d bytes)", minFrame)
	case len(data) < minFrame:
		return fail("%d bytes: a raw frame needs at least an Ethernet header (%d bytes)", len(data), minFrame)
	case len(data) > capture.MaxCapture:
		return fail("%d bytes: more than any frame (%d)", len(data), capture.MaxCapture)
	}
	pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.NoCopy)
	return Case{
		Name:    rawName(path),
		Summary: Summarize(data),
		Source:  describe(pkt).source,
		Frame:   data,
	}, nil
}

// rawName is a raw frame's case name: its file's base name without the
// last extension, or the whole base name when that would leave nothing.
func rawName(path string) string {
	base := filepath.Base(path)
	if name := strings.TrimSuffix(base, filepath.Ext(base)); name != "" {
		return name
	}
	return base
}

// Extensions that say what a file is, whatever it holds.
var (
	rawExtensions  = []string{".bin", ".raw"}
	caseExtensions = []string{".yaml", ".yml", ".json"}
)

// IsCaseFile tells a packet case file (YAML or JSON) from a raw frame:
//
//   - a .bin or .raw file is a raw frame, and a .yaml, .yml or .json file
//     a case file, whatever they hold;
//   - any other is a case file if it is text, else a raw frame. Text is
//     valid UTF-8 with no control character but tab, line feed and
//     carriage return, as YAML requires; an empty file is text.
//
// No Ethernet frame of real traffic is text: its EtherType (0x0800, 0x86dd,
// 0x0806, 0x8100, ...) is a control character or no UTF-8, and IPv4's and
// IPv6's headers hold zeros. A frame made of text must be named .bin or
// .raw; one that is not is read as YAML, and its error says so.
func IsCaseFile(path string, data []byte) bool {
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case slices.Contains(rawExtensions, ext):
		return false
	case slices.Contains(caseExtensions, ext):
		return true
	}
	return isText(data)
}

// isText is true for valid UTF-8 with no control character but tab, line
// feed and carriage return.
func isText(data []byte) bool {
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
		data = data[size:]
	}
	return true
}

// caseFileError adds to the error of a text file read as a case file, when
// nothing but its content made it one and it does not begin as one, that
// a frame made of text would need a name that says so.
func caseFileError(path string, data []byte, err error) error {
	ext := strings.ToLower(filepath.Ext(path))
	if slices.Contains(caseExtensions, ext) || beginsWithCases(data) {
		return err
	}
	return fmt.Errorf("%w (read as a case file, being text; a raw frame of text needs a .bin or .raw name)", err)
}

// beginsWithCases is true when the first key of a YAML or JSON document is
// cases, past blank lines, comments, directives and a document start.
func beginsWithCases(data []byte) bool {
	rest := string(bytes.TrimPrefix(data, []byte("\uFEFF")))
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "%") && t != "---" {
			break
		}
		rest = after
	}
	rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(rest), "{"), " \t\r\n")
	for _, key := range []string{"cases", `"cases"`, `'cases'`} {
		if after, ok := strings.CutPrefix(rest, key); ok && strings.HasPrefix(strings.TrimLeft(after, " \t"), ":") {
			return true
		}
	}
	return false
}

// isCaptureFile is true for a file named .pcap or .pcapng, and for one
// IsCaseFile would take for a raw frame that begins as a capture does,
// unless its name says it is a frame.
func isCaptureFile(path string, data []byte) bool {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pcap" || ext == ".pcapng":
		return true
	case slices.Contains(rawExtensions, ext) || IsCaseFile(path, data) || len(data) < 4:
		return false
	}
	switch binary.LittleEndian.Uint32(data) {
	case capture.PcapMicro, capture.PcapMicroBE, capture.PcapNano, capture.PcapNanoBE, capture.NgSection:
		return true
	}
	return false
}
