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

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"gopkg.in/yaml.v3"
)

// Format renders the bytes of a map key or value as its BTF type
// says: numbers, enum names, structs and unions by member, big-endian
// fields as numbers. Without a type it falls back to hex.
func Format(t btf.Type, b []byte) string {
	if IsVoid(t) {
		return hexString(b)
	}
	bigEndian := isBigEndian(t)
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		if t.Encoding&btf.Bool != 0 && len(b) == 1 {
			return strconv.FormatBool(b[0] != 0)
		}
		if n, ok := intValue(b, int(t.Size), t.Encoding&btf.Signed != 0, bigEndian); ok {
			return n
		}
	case *btf.Enum:
		v, ok := Uint(b, int(t.Size))
		if !ok {
			break
		}
		for _, e := range t.Values {
			if e.Value == v {
				return e.Name
			}
		}
		return strconv.FormatUint(v, 10)
	case *btf.Struct:
		if fields, ok := formatMembers(t.Members, b); ok {
			return "{" + strings.Join(fields, ", ") + "}"
		}
	case *btf.Union:
		if fields, ok := formatMembers(t.Members, b); ok {
			return "{" + strings.Join(fields, " | ") + "}"
		}
	case *btf.Array:
		size, err := btf.Sizeof(t.Type)
		if err != nil || size == 0 || int(t.Nelems)*size != len(b) || size == 1 {
			return hexString(b)
		}
		var elems []string
		for i := range int(t.Nelems) {
			elems = append(elems, Format(t.Type, b[i*size:(i+1)*size]))
		}
		return "[" + strings.Join(elems, ", ") + "]"
	case *btf.Datasec:
		var vars []string
		for _, v := range t.Vars {
			variable, ok := v.Type.(*btf.Var)
			if !ok || int(v.Offset+v.Size) > len(b) {
				continue
			}
			vars = append(vars, variable.Name+": "+Format(variable.Type, b[v.Offset:v.Offset+v.Size]))
		}
		return "{" + strings.Join(vars, ", ") + "}"
	}
	return hexString(b)
}

// formatMembers renders the members of a struct or union; those of
// anonymous members inline, as C names them.
func formatMembers(members []btf.Member, b []byte) ([]string, bool) {
	var fields []string
	for _, m := range members {
		if m.BitfieldSize != 0 {
			v, ok := getBits(b, uint32(m.Offset), uint32(m.BitfieldSize))
			if !ok {
				return nil, false
			}
			fields = append(fields, m.Name+": "+strconv.FormatUint(v, 10))
			continue
		}
		size, err := btf.Sizeof(m.Type)
		start := int(m.Offset / 8)
		if err != nil || m.Offset%8 != 0 || start+size > len(b) {
			return nil, false
		}
		value := Format(m.Type, b[start:start+size])
		if m.Name == "" {
			fields = append(fields, strings.Trim(value, "{}"))
			continue
		}
		fields = append(fields, m.Name+": "+value)
	}
	return fields, true
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
// BTF type t when there is one; without, from a number or an address of
// that size. hexField names the field to use instead.
func EncodeSized(t btf.Type, size int, n *yaml.Node, hexField string) ([]byte, error) {
	if !IsVoid(t) {
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

// Encode builds the bytes of a key or value of BTF type t from YAML:
// a number or enum name for integers and enums, a mapping by member for
// structs and unions, a sequence for arrays, a string for an address of
// the type's size or for a char array.
func Encode(t btf.Type, n *yaml.Node) ([]byte, error) {
	size, err := btf.Sizeof(t)
	if err != nil {
		return nil, fmt.Errorf("type %v has no size: %w", t, err)
	}
	out := make([]byte, size)
	if n.Kind == yaml.ScalarNode {
		if addr, ok := parseAddress(n.Value, size); ok {
			return addr, nil
		}
	}
	bigEndian := isBigEndian(t)
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		err = encodeInt(t, bigEndian, n, out)
	case *btf.Enum:
		err = encodeEnum(t, n, out)
	case *btf.Struct:
		return out, encodeMembers("struct "+t.Name, t.Members, n, out)
	case *btf.Union:
		return out, encodeMembers("union "+t.Name, t.Members, n, out)
	case *btf.Datasec:
		err = encodeDatasec(t, n, out)
	case *btf.Array:
		err = encodeArray(t, n, out)
	default:
		return nil, fmt.Errorf("line %d: values of type %v cannot be written as YAML; give them in hex", n.Line, t)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// encodeInt fills out, an integer's bytes, from a number, or true or false
// for a bool; a big-endian one takes a number in network byte order.
func encodeInt(t *btf.Int, bigEndian bool, n *yaml.Node, out []byte) error {
	if t.Encoding&btf.Bool != 0 && n.Kind == yaml.ScalarNode {
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
func encodeDatasec(t *btf.Datasec, n *yaml.Node, out []byte) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of the variables of section %s", n.Line, t.Name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, value := n.Content[i], n.Content[i+1]
		v := varNamed(t, name.Value)
		if v == nil {
			return fmt.Errorf("line %d: section %s has no variable %q", name.Line, t.Name, name.Value)
		}
		b, err := Encode(v.Type.(*btf.Var).Type, value)
		if err != nil {
			return fmt.Errorf("%s: %w", name.Value, err)
		}
		copy(out[v.Offset:], b)
	}
	return nil
}

// encodeArray fills out, an array's bytes, from a sequence of its
// elements, or from a string for a char array.
func encodeArray(t *btf.Array, n *yaml.Node, out []byte) error {
	elem := len(out) / int(max(t.Nelems, 1))
	if elemInt, ok := btf.UnderlyingType(t.Type).(*btf.Int); ok && elem == 1 && elemInt.Size == 1 && n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if len(n.Value) > int(t.Nelems) {
			return fmt.Errorf("line %d: %q is longer than %d bytes", n.Line, n.Value, t.Nelems)
		}
		copy(out, n.Value)
		return nil
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) > int(t.Nelems) {
		return fmt.Errorf("line %d: want a sequence of at most %d elements", n.Line, t.Nelems)
	}
	for i, e := range n.Content {
		b, err := Encode(t.Type, e)
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		copy(out[i*elem:], b)
	}
	return nil
}

// encodeMembers fills out, a struct's or union's bytes, from a mapping by
// member name. Members of anonymous structs and unions are named as C
// names them, without the anonymous one; bitfields take numbers.
func encodeMembers(what string, members []btf.Member, n *yaml.Node, out []byte) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of the members of %s", n.Line, what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, value := n.Content[i], n.Content[i+1]
		m, offset := memberNamed(members, name.Value, 0)
		if m == nil {
			return fmt.Errorf("line %d: %s has no member %q (members: %s)", name.Line, what, name.Value, strings.Join(memberNames(members), ", "))
		}
		if m.BitfieldSize != 0 {
			v, _, err := scalar(value, false, 8)
			if err != nil {
				return fmt.Errorf("%s: %w", name.Value, err)
			}
			if bits := uint(m.BitfieldSize); bits < 64 && v >= 1<<bits {
				return fmt.Errorf("line %d: %s: %d does not fit in its %d bits", value.Line, name.Value, v, bits)
			}
			putBits(out, uint32(offset), uint32(m.BitfieldSize), v)
			continue
		}
		if offset%8 != 0 {
			return fmt.Errorf("line %d: %s: member %q is not byte-aligned", name.Line, what, name.Value)
		}
		b, err := Encode(m.Type, value)
		if err != nil {
			return fmt.Errorf("%s: %w", name.Value, err)
		}
		copy(out[offset/8:], b)
	}
	return nil
}

// memberNamed finds a member by name, in anonymous members too, and its
// offset in bits from the start of the outermost type.
func memberNamed(members []btf.Member, name string, base btf.Bits) (*btf.Member, btf.Bits) {
	for i := range members {
		m := &members[i]
		if m.Name == name {
			return m, base + m.Offset
		}
		if m.Name != "" {
			continue
		}
		var inner []btf.Member
		switch t := btf.UnderlyingType(m.Type).(type) {
		case *btf.Struct:
			inner = t.Members
		case *btf.Union:
			inner = t.Members
		}
		if found, offset := memberNamed(inner, name, base+m.Offset); found != nil {
			return found, offset
		}
	}
	return nil, 0
}

func memberNames(members []btf.Member) []string {
	var names []string
	for _, m := range members {
		if m.Name != "" {
			names = append(names, m.Name)
			continue
		}
		switch t := btf.UnderlyingType(m.Type).(type) {
		case *btf.Struct:
			names = append(names, memberNames(t.Members)...)
		case *btf.Union:
			names = append(names, memberNames(t.Members)...)
		}
	}
	return names
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
// (XDP_DROP, TC_ACT_SHOT), or htons(N) or htonl(N), N in network byte
// order, which raw reports: a big-endian field takes such a value as it is.
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

func putBits(out []byte, offset, size uint32, v uint64) {
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
}

func getBits(b []byte, offset, size uint32) (uint64, bool) {
	if size > 64 || (offset+size+7)/8 > uint32(len(b)) {
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
