package btfvalue

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"
)

// Limits that keep reading a type bounded whatever its BTF says: a
// crafted object's types may nest without end, hold themselves, or claim
// sizes and counts far beyond the bytes they describe.
const (
	// maxDepth is how deep types may nest: C's nest a few levels;
	// cilium/ebpf resolves typedefs to 32.
	maxDepth = 32
	// maxSteps is how many types one value may visit, so that wide
	// types nested in wide types cannot multiply into a hang.
	maxSteps = 100_000
	// maxFormatted is the most characters a formatted value takes; what
	// follows is cut, and the cut says how much it left.
	maxFormatted = 4096
	// maxHexBytes and maxElements are the most bytes shown in hex and
	// elements of an array shown before "…": a global of megabytes
	// shows its start and its size.
	maxHexBytes = 128
	maxElements = 128
	// maxMemberNames is the most member names an error lists.
	maxMemberNames = 32
)

// Format renders the bytes of a map key or value as its BTF type
// says: numbers, enum names, structs and unions by member, big-endian
// fields as numbers. Without a type it falls back to hex, as it does for
// any part whose type does not fit its bytes, nests too deep or holds
// itself. The result is at most about maxFormatted characters; a longer
// value ends in "… (N more bytes)".
func Format(t btf.Type, b []byte) string {
	f := formatter{}
	return f.format(t, b)
}

// KernelAddress is what FormatHidingKernelAddresses shows in place of one.
const KernelAddress = "<kernel address>"

// FormatHidingKernelAddresses is Format with every 8-byte-aligned 64-bit
// value that looks like a kernel address shown as KernelAddress, as a
// number or within hex, and so every field that overlaps one: for a user
// who could not read kernel addresses, who runs a binary given
// CAP_PERFMON, with which the verifier lets a program store one in a map.
// Alignment counts from the start of b, as the kernel aligns map values
// and keys to 8 bytes.
func FormatHidingKernelAddresses(t btf.Type, b []byte) string {
	f := formatter{hidden: kernelAddresses(b)}
	return f.format(t, b)
}

// kernelAddresses are the 8-byte words of b, by index, that look like a
// kernel address.
func kernelAddresses(b []byte) map[int]bool {
	var words map[int]bool
	for i := 0; i+8 <= len(b); i += 8 {
		if LooksLikeKernelAddress(binary.NativeEndian.Uint64(b[i:])) {
			if words == nil {
				words = map[int]bool{}
			}
			words[i/8] = true
		}
	}
	return words
}

// LooksLikeKernelAddress says whether v could be an address in a 64-bit
// kernel's half of the address space: x86-64 (from 0xffff800000000000,
// or 0xff00000000000000 with five-level paging), arm64 and riscv64 place
// their kernels in the top half, at or above 0xff00000000000000. The top
// mebibyte is left out: -1 and small negative numbers are no addresses
// (the kernel maps nothing there; ERR_PTR values live there). 32-bit
// kernels' addresses, and s390's, which sit low, cannot be told from
// numbers.
func LooksLikeKernelAddress(v uint64) bool {
	return v >= 0xff00_0000_0000_0000 && v < 0xffff_ffff_fff0_0000
}

func (f *formatter) format(t btf.Type, b []byte) string {
	f.value(t, b, 0, 0)
	s := f.String()
	if f.cut {
		s = cutString(s, maxFormatted) + fmt.Sprintf("… (cut: %d bytes of value)", len(b))
	}
	return s
}

// formatter writes one value; cut says it stopped at a limit.
type formatter struct {
	strings.Builder
	steps int
	cut   bool
	// open are the structs and unions being written, innermost last: one
	// met again holds itself.
	open []btf.Type
	// hidden are the 8-byte words of the value, by index, shown as
	// KernelAddress.
	hidden map[int]bool
}

// overlapsHidden says whether n bytes at offset base touch a hidden word.
func (f *formatter) overlapsHidden(base, n int) bool {
	if f.hidden == nil || n <= 0 {
		return false
	}
	for w := base / 8; w <= (base+n-1)/8; w++ {
		if f.hidden[w] {
			return true
		}
	}
	return false
}

// full says whether the formatter is past a limit, and marks it cut.
func (f *formatter) full() bool {
	if f.Len() > maxFormatted || f.steps > maxSteps {
		f.cut = true
	}
	return f.cut
}

// value writes b, at offset base of the whole value, as t says.
func (f *formatter) value(t btf.Type, b []byte, base, depth int) {
	f.steps++
	if f.full() {
		return
	}
	if IsVoid(t) || depth > maxDepth {
		f.hex(b, base)
		return
	}
	bigEndian := isBigEndian(t)
	switch btf.UnderlyingType(t).(type) {
	case *btf.Int, *btf.Enum:
		if f.overlapsHidden(base, len(b)) {
			f.WriteString(KernelAddress)
			return
		}
	}
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		if t.Encoding&btf.Bool != 0 && len(b) == 1 {
			f.WriteString(strconv.FormatBool(b[0] != 0))
			return
		}
		if n, ok := intValue(b, int(t.Size), t.Encoding&btf.Signed != 0, bigEndian); ok {
			f.WriteString(n)
			return
		}
	case *btf.Enum:
		v, ok := Uint(b, int(t.Size))
		if !ok {
			break
		}
		for _, e := range t.Values {
			if e.Value == v {
				f.WriteString(e.Name)
				return
			}
		}
		f.WriteString(strconv.FormatUint(v, 10))
		return
	case *btf.Struct:
		if f.members(t, t.Members, b, base, ", ", depth) {
			return
		}
	case *btf.Union:
		if f.members(t, t.Members, b, base, " | ", depth) {
			return
		}
	case *btf.Array:
		if f.array(t, b, base, depth) {
			return
		}
	case *btf.Datasec:
		f.datasec(t, b, base, depth)
		return
	}
	f.hex(b, base)
}

// array writes an array's elements, the first maxElements of them; false
// when its type does not fit b, or its elements are bytes (shown in hex).
func (f *formatter) array(t *btf.Array, b []byte, base, depth int) bool {
	size, err := btf.Sizeof(t.Type)
	total, errTotal := btf.Sizeof(t)
	if err != nil || errTotal != nil || size <= 1 || total != len(b) {
		return false
	}
	f.WriteByte('[')
	for i := range int(t.Nelems) {
		if i > 0 {
			f.WriteString(", ")
		}
		if i == maxElements {
			fmt.Fprintf(f, "… (%d more)", int(t.Nelems)-i)
			break
		}
		f.value(t.Type, b[i*size:(i+1)*size], base+i*size, depth+1)
		if f.full() {
			return true
		}
	}
	f.WriteByte(']')
	return true
}

// datasec writes a section's variables, those that fit b.
func (f *formatter) datasec(t *btf.Datasec, b []byte, base, depth int) {
	f.WriteByte('{')
	first := true
	for _, v := range t.Vars {
		f.steps++
		if f.full() {
			return
		}
		variable, ok := v.Type.(*btf.Var)
		if !ok || uint64(v.Offset)+uint64(v.Size) > uint64(len(b)) {
			continue
		}
		if !first {
			f.WriteString(", ")
		}
		first = false
		f.WriteString(variable.Name + ": ")
		f.value(variable.Type, b[v.Offset:v.Offset+v.Size], base+int(v.Offset), depth+1)
	}
	f.WriteByte('}')
}

// members writes the members of a struct or union in braces, those of
// anonymous members inline, as C names them; false, writing nothing,
// when one does not fit b or the type holds itself.
func (f *formatter) members(t btf.Type, members []btf.Member, b []byte, base int, sep string, depth int) bool {
	if slices.Contains(f.open, t) || !membersFit(members, b) {
		return false
	}
	f.open = append(f.open, t)
	defer func() { f.open = f.open[:len(f.open)-1] }()
	f.WriteByte('{')
	f.inline(members, b, base, sep, depth)
	f.WriteByte('}')
	return true
}

// inline writes members without braces; membersFit has checked them.
func (f *formatter) inline(members []btf.Member, b []byte, base int, sep string, depth int) {
	for i, m := range members {
		f.steps++
		if f.full() {
			return
		}
		if i > 0 {
			f.WriteString(sep)
		}
		if m.BitfieldSize != 0 {
			v, _ := getBits(b, uint64(m.Offset), uint64(m.BitfieldSize))
			value := strconv.FormatUint(v, 10)
			first, last := int(m.Offset/8), int((uint64(m.Offset)+uint64(m.BitfieldSize)-1)/8)
			if f.overlapsHidden(base+first, last-first+1) {
				value = KernelAddress
			}
			f.WriteString(m.Name + ": " + value)
			continue
		}
		size, _ := btf.Sizeof(m.Type)
		start := int(m.Offset / 8)
		value := b[start : start+size]
		if m.Name == "" {
			if f.anonymous(m.Type, value, base+start, sep, depth) {
				continue
			}
		} else {
			f.WriteString(m.Name + ": ")
		}
		f.value(m.Type, value, base+start, depth+1)
	}
}

// anonymous writes an anonymous struct's or union's members inline, as
// C names them; false when it cannot, and the member is written whole.
func (f *formatter) anonymous(t btf.Type, b []byte, base int, sep string, depth int) bool {
	var members []btf.Member
	inner := btf.UnderlyingType(t)
	switch inner := inner.(type) {
	case *btf.Struct:
		members, sep = inner.Members, ", "
	case *btf.Union:
		members, sep = inner.Members, " | "
	default:
		return false
	}
	if depth >= maxDepth || slices.Contains(f.open, inner) || !membersFit(members, b) {
		return false
	}
	f.open = append(f.open, inner)
	defer func() { f.open = f.open[:len(f.open)-1] }()
	f.inline(members, b, base, sep, depth+1)
	return true
}

// membersFit says whether every member of a struct or union lies within
// b, its bytes: crafted BTF may place one past its struct's end.
func membersFit(members []btf.Member, b []byte) bool {
	for _, m := range members {
		if m.BitfieldSize != 0 {
			if _, ok := getBits(b, uint64(m.Offset), uint64(m.BitfieldSize)); !ok {
				return false
			}
			continue
		}
		size, err := btf.Sizeof(m.Type)
		if err != nil || m.Offset%8 != 0 || !fits(uint64(m.Offset/8), size, len(b)) {
			return false
		}
	}
	return true
}

// fits says whether size bytes from start lie within n bytes.
func fits(start uint64, size, n int) bool {
	return size >= 0 && start <= uint64(n) && uint64(size) <= uint64(n)-start
}

// hex writes bytes, at offset base of the whole value, in hex, the first
// maxHexBytes of them; each run of hidden words as one KernelAddress.
func (f *formatter) hex(b []byte, base int) {
	shown := b[:min(len(b), maxHexBytes)]
	f.WriteString("0x")
	if f.hidden == nil {
		f.WriteString(hex.EncodeToString(shown))
	} else {
		var digits [2]byte
		for i, c := range shown {
			if f.hidden[(base+i)/8] {
				if i == 0 || !f.hidden[(base+i-1)/8] {
					f.WriteString(KernelAddress)
				}
				continue
			}
			hex.Encode(digits[:], []byte{c})
			f.Write(digits[:])
		}
	}
	if len(b) > len(shown) {
		fmt.Fprintf(f, "… (%d more bytes)", len(b)-len(shown))
	}
}

// cutString cuts s to at most n bytes, at a character's start.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func hexString(b []byte) string { return "0x" + hex.EncodeToString(b) }

// IsVoid says whether t is no type at all: bytes without BTF.
func IsVoid(t btf.Type) bool {
	_, void := t.(*btf.Void)
	return t == nil || void
}

// isBigEndian says whether t is one of the kernel's big-endian integer
// types (__be16, __be32, __be64), through typedefs and qualifiers.
func isBigEndian(t btf.Type) bool {
	for range 16 {
		switch tt := t.(type) {
		case *btf.Typedef:
			switch tt.Name {
			case "__be16", "__be32", "__be64":
				return true
			}
			t = tt.Type
		case *btf.Const:
			t = tt.Type
		case *btf.Volatile:
			t = tt.Type
		default:
			return false
		}
	}
	return false
}

// Uint reads a native-endian unsigned integer of size bytes, if b holds one.
func Uint(b []byte, size int) (uint64, bool) {
	return uintOrder(b, size, binary.NativeEndian)
}

func uintOrder(b []byte, size int, order binary.ByteOrder) (uint64, bool) {
	if len(b) != size {
		return 0, false
	}
	switch size {
	case 1:
		return uint64(b[0]), true
	case 2:
		return uint64(order.Uint16(b)), true
	case 4:
		return uint64(order.Uint32(b)), true
	case 8:
		return order.Uint64(b), true
	}
	return 0, false
}

func intValue(b []byte, size int, signed, bigEndian bool) (string, bool) {
	var order binary.ByteOrder = binary.NativeEndian
	if bigEndian {
		order = binary.BigEndian
	}
	v, ok := uintOrder(b, size, order)
	if !ok {
		return "", false
	}
	if signed {
		shift := 64 - 8*size
		return strconv.FormatInt(int64(v<<shift)>>shift, 10), true
	}
	return strconv.FormatUint(v, 10), true
}

// EncodeSized builds the bytes of a key or value of size bytes: from its
// BTF type t when there is one, which must be of that size; without, from
// a number or an address of that size. hexField names the field to use
// instead.
func EncodeSized(t btf.Type, size int, n *yaml.Node, hexField string) ([]byte, error) {
	if !IsVoid(t) {
		if typeSize, err := btf.Sizeof(t); err == nil && typeSize != size {
			// Crafted BTF: a type that claims gigabytes for a value of
			// four bytes must not be allocated.
			return nil, fmt.Errorf("line %d: its type %v is of %d bytes, the value of %d: the object's BTF does not fit it; give %s", n.Line, t, typeSize, size, hexField)
		}
		return Encode(t, n)
	}
	out := make([]byte, size)
	if n.Kind == yaml.ScalarNode {
		if addr, ok := parseAddress(n.Value, size); ok {
			return addr, nil
		}
		if size == 1 || size == 2 || size == 4 || size == 8 {
			v, _, err := scalar(n, false, size)
			if err == nil {
				putUint(out, v)
				return out, nil
			}
		}
	}
	return nil, fmt.Errorf("line %d: the object has no BTF type for it: give a number, an address of %d bytes, or %s", n.Line, size, hexField)
}

// maxEncoded is the largest value Encode builds: the kernel takes no map
// value larger (KMALLOC_MAX_SIZE is 4 MiB with 4 KiB pages; a section of
// globals is one value), so a larger type is crafted BTF.
const maxEncoded = 64 << 20

// Encode builds the bytes of a key or value of BTF type t from YAML:
// a number or enum name for integers and enums, a mapping by member for
// structs and unions, a sequence for arrays, a string for an address of
// the type's size or for a char array. Each part is written in place
// within the value's bytes, checked to lie within them, however the BTF
// places it.
func Encode(t btf.Type, n *yaml.Node) ([]byte, error) {
	size, err := btf.Sizeof(t)
	if err != nil {
		return nil, fmt.Errorf("type %v has no size: %w", t, err)
	}
	if size > maxEncoded {
		return nil, fmt.Errorf("line %d: type %v is of %d bytes, over the %d MiB a value can be", n.Line, t, size, maxEncoded>>20)
	}
	out := make([]byte, size)
	if err := encodeInto(t, n, out, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// encodeInto fills out, of t's size, from n.
func encodeInto(t btf.Type, n *yaml.Node, out []byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("line %d: type %v nests deeper than %d types", n.Line, t, maxDepth)
	}
	if n.Kind == yaml.ScalarNode {
		if addr, ok := parseAddress(n.Value, len(out)); ok {
			copy(out, addr)
			return nil
		}
	}
	bigEndian := isBigEndian(t)
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		return encodeInt(t, bigEndian, n, out)
	case *btf.Enum:
		return encodeEnum(t, n, out)
	case *btf.Struct:
		return encodeMembers("struct "+t.Name, t, t.Members, n, out, depth)
	case *btf.Union:
		return encodeMembers("union "+t.Name, t, t.Members, n, out, depth)
	case *btf.Datasec:
		return encodeDatasec(t, n, out, depth)
	case *btf.Array:
		return encodeArray(t, n, out, depth)
	}
	return fmt.Errorf("line %d: values of type %v cannot be written as YAML; give them in hex", n.Line, t)
}

// encodeInt fills out, an integer's bytes, from a number, or true or false
// for a bool; a big-endian one takes a number in network byte order.
func encodeInt(t *btf.Int, bigEndian bool, n *yaml.Node, out []byte) error {
	if t.Encoding&btf.Bool != 0 && n.Kind == yaml.ScalarNode && len(out) > 0 {
		if b, err := strconv.ParseBool(n.Value); err == nil {
			if b {
				out[0] = 1
			}
			return nil
		}
	}
	v, raw, err := scalar(n, t.Encoding&btf.Signed != 0, len(out))
	if err != nil {
		return err
	}
	if bigEndian && !raw {
		putBigEndian(out, v)
	} else {
		putUint(out, v)
	}
	return nil
}

// encodeEnum fills out, an enum's bytes, from one of its names or a number.
func encodeEnum(t *btf.Enum, n *yaml.Node, out []byte) error {
	for _, e := range t.Values {
		if n.Kind == yaml.ScalarNode && n.Value == e.Name {
			putUint(out, e.Value)
			return nil
		}
	}
	v, _, err := scalar(n, t.Signed, len(out))
	if err != nil {
		return fmt.Errorf("%w (or a name of enum %s)", err, t.Name)
	}
	putUint(out, v)
	return nil
}

// encodeDatasec fills out, a section's bytes, from a mapping by variable
// name.
func encodeDatasec(t *btf.Datasec, n *yaml.Node, out []byte, depth int) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of the variables of section %s", n.Line, t.Name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, value := n.Content[i], n.Content[i+1]
		v := varNamed(t, name.Value)
		if v == nil {
			return fmt.Errorf("line %d: section %s has no variable %q", name.Line, t.Name, name.Value)
		}
		varType := v.Type.(*btf.Var).Type
		size, err := btf.Sizeof(varType)
		if err != nil || uint64(size) != uint64(v.Size) || !fits(uint64(v.Offset), size, len(out)) {
			return fmt.Errorf("line %d: %s: variable %q does not fit its section in the object's BTF", name.Line, t.Name, name.Value)
		}
		if err := encodeInto(varType, value, out[v.Offset:int(v.Offset)+size], depth+1); err != nil {
			return fmt.Errorf("%s: %w", name.Value, err)
		}
	}
	return nil
}

// encodeArray fills out, an array's bytes, from a sequence of its
// elements, or from a string for a char array.
func encodeArray(t *btf.Array, n *yaml.Node, out []byte, depth int) error {
	elem, err := btf.Sizeof(t.Type)
	if err != nil || uint64(elem)*uint64(t.Nelems) != uint64(len(out)) {
		return fmt.Errorf("line %d: array type %v does not fit its %d bytes in the object's BTF", n.Line, t, len(out))
	}
	if elemInt, ok := btf.UnderlyingType(t.Type).(*btf.Int); ok && elem == 1 && elemInt.Size == 1 && n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if len(n.Value) > int(t.Nelems) {
			return fmt.Errorf("line %d: %q is longer than %d bytes", n.Line, n.Value, t.Nelems)
		}
		copy(out, n.Value)
		return nil
	}
	if n.Kind != yaml.SequenceNode || uint64(len(n.Content)) > uint64(t.Nelems) {
		return fmt.Errorf("line %d: want a sequence of at most %d elements", n.Line, t.Nelems)
	}
	for i, e := range n.Content {
		if err := encodeInto(t.Type, e, out[i*elem:(i+1)*elem], depth+1); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// encodeMembers fills out, a struct's or union's bytes, from a mapping by
// member name. Members of anonymous structs and unions are named as C
// names them, without the anonymous one; bitfields take numbers.
func encodeMembers(what string, owner btf.Type, members []btf.Member, n *yaml.Node, out []byte, depth int) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of the members of %s", n.Line, what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, value := n.Content[i], n.Content[i+1]
		m, offset := findMember(owner, members, name.Value)
		if m == nil {
			return fmt.Errorf("line %d: %s has no member %q (members: %s)", name.Line, what, name.Value, strings.Join(memberNames(owner, members), ", "))
		}
		if m.BitfieldSize != 0 {
			v, _, err := scalar(value, false, 8)
			if err != nil {
				return fmt.Errorf("%s: %w", name.Value, err)
			}
			if bits := uint(m.BitfieldSize); bits < 64 && v >= 1<<bits {
				return fmt.Errorf("line %d: %s: %d does not fit in its %d bits", value.Line, name.Value, v, bits)
			}
			if !putBits(out, offset, uint64(m.BitfieldSize), v) {
				return fmt.Errorf("line %d: %s: bitfield %q lies past its end in the object's BTF", name.Line, what, name.Value)
			}
			continue
		}
		if offset%8 != 0 {
			return fmt.Errorf("line %d: %s: member %q is not byte-aligned", name.Line, what, name.Value)
		}
		size, err := btf.Sizeof(m.Type)
		if err != nil || !fits(offset/8, size, len(out)) {
			return fmt.Errorf("line %d: %s: member %q lies past its end in the object's BTF", name.Line, what, name.Value)
		}
		start := int(offset / 8)
		if err := encodeInto(m.Type, value, out[start:start+size], depth+1); err != nil {
			return fmt.Errorf("%s: %w", name.Value, err)
		}
	}
	return nil
}

// findMember finds a member of owner, a struct or union, by name, in
// anonymous members too, and its offset in bits from owner's start. It
// looks no deeper than maxDepth, and not into an anonymous member of a
// type it is already in: crafted BTF may nest without end.
func findMember(owner btf.Type, members []btf.Member, name string) (*btf.Member, uint64) {
	steps := 0
	return memberNamed(members, name, 0, []btf.Type{owner}, &steps)
}

func memberNamed(members []btf.Member, name string, base uint64, open []btf.Type, steps *int) (*btf.Member, uint64) {
	for i := range members {
		*steps++
		if *steps > maxSteps {
			return nil, 0
		}
		m := &members[i]
		if m.Name == name {
			return m, base + uint64(m.Offset)
		}
		if m.Name != "" || len(open) >= maxDepth {
			continue
		}
		inner := btf.UnderlyingType(m.Type)
		var innerMembers []btf.Member
		switch t := inner.(type) {
		case *btf.Struct:
			innerMembers = t.Members
		case *btf.Union:
			innerMembers = t.Members
		}
		if innerMembers == nil || slices.Contains(open, inner) {
			continue
		}
		if found, offset := memberNamed(innerMembers, name, base+uint64(m.Offset), append(open, inner), steps); found != nil {
			return found, offset
		}
	}
	return nil, 0
}

// memberNames are the names a mapping of owner's members may use, the
// first maxMemberNames of them.
func memberNames(owner btf.Type, members []btf.Member) []string {
	var names []string
	steps := 0
	collectNames(members, []btf.Type{owner}, &names, &steps)
	if len(names) > maxMemberNames {
		names = append(names[:maxMemberNames], "…")
	}
	return names
}

func collectNames(members []btf.Member, open []btf.Type, names *[]string, steps *int) {
	for _, m := range members {
		*steps++
		if *steps > maxSteps || len(*names) > maxMemberNames {
			return
		}
		if m.Name != "" {
			*names = append(*names, m.Name)
			continue
		}
		if len(open) >= maxDepth {
			continue
		}
		inner := btf.UnderlyingType(m.Type)
		if slices.Contains(open, inner) {
			continue
		}
		switch t := inner.(type) {
		case *btf.Struct:
			collectNames(t.Members, append(open, inner), names, steps)
		case *btf.Union:
			collectNames(t.Members, append(open, inner), names, steps)
		}
	}
}

func varNamed(ds *btf.Datasec, name string) *btf.VarSecinfo {
	for i, v := range ds.Vars {
		if variable, ok := v.Type.(*btf.Var); ok && variable.Name == name {
			return &ds.Vars[i]
		}
	}
	return nil
}

// parseAddress reads an IPv4, IPv6 or MAC address as the bytes of a field
// of size bytes, in network byte order as in a packet.
func parseAddress(s string, size int) ([]byte, bool) {
	switch size {
	case 4, 16:
		addr, err := netip.ParseAddr(s)
		if err != nil || addr.Zone() != "" || (size == 4) != addr.Is4() {
			return nil, false
		}
		return addr.AsSlice(), true
	case 6:
		mac, err := net.ParseMAC(s)
		if err != nil || len(mac) != 6 {
			return nil, false
		}
		return mac, true
	}
	return nil, false
}

// scalar reads an integer: a number in Go's syntax, an action's name
// (XDP_DROP, TC_ACT_SHOT), now[±D] (monotonicNow), or htons(N) or
// htonl(N), N in network byte order, which raw reports: a big-endian
// field takes such a value as it is.
func scalar(n *yaml.Node, signed bool, size int) (v uint64, raw bool, err error) {
	if n.Kind != yaml.ScalarNode {
		return 0, false, fmt.Errorf("line %d: want a number", n.Line)
	}
	for _, names := range ActionNames {
		if i := slices.Index(names, n.Value); i >= 0 {
			return uint64(i), false, nil
		}
	}
	bits := 8 * size
	if at, ok, err := monotonicNow(n.Value); ok {
		if err != nil || bits < 64 {
			return 0, false, fmt.Errorf("line %d: %q: want now, now+D or now-D (D a duration: 30s, 2m), after boot, in a 64-bit field: bpf_ktime_get_ns's nanoseconds", n.Line, n.Value)
		}
		return at, false, err
	}
	for _, f := range []struct {
		name string
		bits int
	}{{"htons", 16}, {"htonl", 32}} {
		arg, ok := strings.CutPrefix(n.Value, f.name+"(")
		if !ok {
			continue
		}
		arg, ok = strings.CutSuffix(arg, ")")
		x, err := strconv.ParseUint(strings.TrimSpace(arg), 0, f.bits)
		if !ok || err != nil || f.bits > bits {
			return 0, false, fmt.Errorf("line %d: %q: want %s(N), N an unsigned %d-bit number, for a field of at least %d bits", n.Line, n.Value, f.name, f.bits, f.bits)
		}
		b := make([]byte, f.bits/8)
		putBigEndian(b, x)
		v, _ := Uint(b, len(b))
		return v, true, nil
	}
	if signed {
		v, err := strconv.ParseInt(n.Value, 0, bits)
		if err != nil {
			return 0, false, fmt.Errorf("line %d: %q is not a signed %d-bit number", n.Line, n.Value, bits)
		}
		return uint64(v), false, nil
	}
	v, err = strconv.ParseUint(n.Value, 0, bits)
	if err != nil {
		return 0, false, fmt.Errorf("line %d: %q is not an unsigned %d-bit number", n.Line, n.Value, bits)
	}
	return v, false, nil
}

// monotonicNow reads now, now+D or now-D as the kernel's monotonic clock
// in nanoseconds (bpf_ktime_get_ns's) plus D: an LRU entry's or a
// conntrack entry's timestamp must be on that clock, else the program
// takes it for stale. ok says the value is one of these forms.
func monotonicNow(s string) (at uint64, ok bool, err error) {
	rest, ok := strings.CutPrefix(s, "now")
	if !ok {
		return 0, false, nil
	}
	var offset time.Duration
	if rest != "" {
		if rest[0] != '+' && rest[0] != '-' {
			return 0, false, nil // a name that starts with now
		}
		if offset, err = time.ParseDuration(rest); err != nil {
			return 0, true, err
		}
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, true, err
	}
	v := ts.Nano() + offset.Nanoseconds()
	if v < 0 || offset > 0 && v < ts.Nano() {
		return 0, true, fmt.Errorf("%s is before boot or past the clock", s)
	}
	return uint64(v), true, nil
}

func putUint(out []byte, v uint64) {
	switch len(out) {
	case 1:
		out[0] = byte(v)
	case 2:
		binary.NativeEndian.PutUint16(out, uint16(v))
	case 4:
		binary.NativeEndian.PutUint32(out, uint32(v))
	case 8:
		binary.NativeEndian.PutUint64(out, v)
	}
}

func putBigEndian(out []byte, v uint64) {
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = byte(v)
		v >>= 8
	}
}

// Bitfields: BTF gives a member's offset in bits from the start of the
// struct. On a little-endian machine bit k is bit k%8 of byte k/8 counted
// from the least significant bit, and a field's low bit comes first; on a
// big-endian one bits are counted from the most significant, and a
// field's high bit comes first.

// putBits writes v into size bits from offset; false, writing nothing,
// when they lie past out's end.
func putBits(out []byte, offset, size uint64, v uint64) bool {
	if size > 64 || offset+size > 8*uint64(len(out)) {
		return false
	}
	for i := range size {
		bit := byte(v >> i & 1)
		if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
			pos := offset + i
			out[pos/8] = out[pos/8]&^(1<<(pos%8)) | bit<<(pos%8)
		} else {
			pos := offset + size - 1 - i
			out[pos/8] = out[pos/8]&^(1<<(7-pos%8)) | bit<<(7-pos%8)
		}
	}
	return true
}

func getBits(b []byte, offset, size uint64) (uint64, bool) {
	if size > 64 || offset+size > 8*uint64(len(b)) {
		return 0, false
	}
	var v uint64
	for i := range size {
		var bit byte
		if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
			pos := offset + i
			bit = b[pos/8] >> (pos % 8) & 1
		} else {
			pos := offset + size - 1 - i
			bit = b[pos/8] >> (7 - pos%8) & 1
		}
		v |= uint64(bit) << i
	}
	return v, true
}

// ActionNames are the named return codes of a program type; the index is
// the code. They live here because a map value in YAML may name one. tc's TC_ACT_UNSPEC is -1 and handled apart.
var ActionNames = map[ebpf.ProgramType][]string{
	ebpf.XDP: {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"},
	ebpf.SchedCLS: {"TC_ACT_OK", "TC_ACT_RECLASSIFY", "TC_ACT_SHOT", "TC_ACT_PIPE",
		"TC_ACT_STOLEN", "TC_ACT_QUEUED", "TC_ACT_REPEAT", "TC_ACT_REDIRECT", "TC_ACT_TRAP"},
}
