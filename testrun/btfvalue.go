package testrun

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
	"gopkg.in/yaml.v3"
)

// formatValue renders the bytes of a map key or value as its BTF type
// says: numbers, enum names, structs by member. Without a type it falls
// back to hex.
func formatValue(t btf.Type, b []byte) string {
	if _, isVoid := t.(*btf.Void); t == nil || isVoid {
		return hexString(b)
	}
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		if n, ok := intValue(b, int(t.Size), t.Encoding&btf.Signed != 0); ok {
			return n
		}
	case *btf.Enum:
		v, ok := uintValue(b, int(t.Size))
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
		var fields []string
		for _, m := range t.Members {
			size, err := btf.Sizeof(m.Type)
			start := int(m.Offset / 8)
			if err != nil || m.BitfieldSize != 0 || m.Offset%8 != 0 || start+size > len(b) {
				return hexString(b)
			}
			fields = append(fields, m.Name+": "+formatValue(m.Type, b[start:start+size]))
		}
		return "{" + strings.Join(fields, ", ") + "}"
	case *btf.Array:
		size, err := btf.Sizeof(t.Type)
		if err != nil || size == 0 || int(t.Nelems)*size != len(b) || size == 1 {
			return hexString(b)
		}
		var elems []string
		for i := range int(t.Nelems) {
			elems = append(elems, formatValue(t.Type, b[i*size:(i+1)*size]))
		}
		return "[" + strings.Join(elems, ", ") + "]"
	case *btf.Datasec:
		var vars []string
		for _, v := range t.Vars {
			variable, ok := v.Type.(*btf.Var)
			if !ok || int(v.Offset+v.Size) > len(b) {
				continue
			}
			vars = append(vars, variable.Name+": "+formatValue(variable.Type, b[v.Offset:v.Offset+v.Size]))
		}
		return "{" + strings.Join(vars, ", ") + "}"
	}
	return hexString(b)
}

func hexString(b []byte) string { return "0x" + hex.EncodeToString(b) }

func uintValue(b []byte, size int) (uint64, bool) {
	if len(b) != size {
		return 0, false
	}
	switch size {
	case 1:
		return uint64(b[0]), true
	case 2:
		return uint64(binary.NativeEndian.Uint16(b)), true
	case 4:
		return uint64(binary.NativeEndian.Uint32(b)), true
	case 8:
		return binary.NativeEndian.Uint64(b), true
	}
	return 0, false
}

func intValue(b []byte, size int, signed bool) (string, bool) {
	v, ok := uintValue(b, size)
	if !ok {
		return "", false
	}
	if signed {
		shift := 64 - 8*size
		return strconv.FormatInt(int64(v<<shift)>>shift, 10), true
	}
	return strconv.FormatUint(v, 10), true
}

// encodeValue builds the bytes of a key or value of BTF type t from YAML:
// a number or enum name for integers and enums, a mapping by member for
// structs, a sequence for arrays.
func encodeValue(t btf.Type, n *yaml.Node) ([]byte, error) {
	size, err := btf.Sizeof(t)
	if err != nil {
		return nil, fmt.Errorf("type %v has no size: %w", t, err)
	}
	out := make([]byte, size)
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		v, err := scalar(n, t.Encoding&btf.Signed != 0, size)
		if err != nil {
			return nil, err
		}
		putUint(out, v)
	case *btf.Enum:
		for _, e := range t.Values {
			if n.Kind == yaml.ScalarNode && n.Value == e.Name {
				putUint(out, e.Value)
				return out, nil
			}
		}
		v, err := scalar(n, t.Signed, size)
		if err != nil {
			return nil, fmt.Errorf("%w (or a name of enum %s)", err, t.Name)
		}
		putUint(out, v)
	case *btf.Struct:
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: want a mapping of the members of struct %s", n.Line, t.Name)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			name, value := n.Content[i], n.Content[i+1]
			m := memberNamed(t, name.Value)
			if m == nil || m.BitfieldSize != 0 || m.Offset%8 != 0 {
				return nil, fmt.Errorf("line %d: struct %s has no byte-aligned member %q", name.Line, t.Name, name.Value)
			}
			b, err := encodeValue(m.Type, value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name.Value, err)
			}
			copy(out[m.Offset/8:], b)
		}
	case *btf.Array:
		if n.Kind != yaml.SequenceNode || len(n.Content) > int(t.Nelems) {
			return nil, fmt.Errorf("line %d: want a sequence of at most %d elements", n.Line, t.Nelems)
		}
		elem := size / int(max(t.Nelems, 1))
		for i, e := range n.Content {
			b, err := encodeValue(t.Type, e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			copy(out[i*elem:], b)
		}
	default:
		return nil, fmt.Errorf("line %d: values of type %v cannot be written as YAML; give them in hex", n.Line, t)
	}
	return out, nil
}

func memberNamed(s *btf.Struct, name string) *btf.Member {
	for i := range s.Members {
		if s.Members[i].Name == name {
			return &s.Members[i]
		}
	}
	return nil
}

func scalar(n *yaml.Node, signed bool, size int) (uint64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("line %d: want a number", n.Line)
	}
	bits := 8 * size
	if signed {
		v, err := strconv.ParseInt(n.Value, 0, bits)
		if err != nil {
			return 0, fmt.Errorf("line %d: %q is not a signed %d-bit number", n.Line, n.Value, bits)
		}
		return uint64(v), nil
	}
	v, err := strconv.ParseUint(n.Value, 0, bits)
	if err != nil {
		return 0, fmt.Errorf("line %d: %q is not an unsigned %d-bit number", n.Line, n.Value, bits)
	}
	return v, nil
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
