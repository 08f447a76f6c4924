package mapinit

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
	"gopkg.in/yaml.v3"

	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
)

// EncodeNumber is the bytes of a key or value written as a decimal number
// for an integer of the host's byte order (or of a map without BTF), the
// bulk of a large map's entries, without btfvalue's general path (names,
// addresses, htons(N)): the same bytes, a fraction of the time. false for
// anything else, which btfvalue encodes.
func EncodeNumber(t btf.Type, size int, n *yaml.Node) ([]byte, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || !isDecimal(n.Value) || size != 1 && size != 2 && size != 4 && size != 8 {
		return nil, false
	}
	signed := false
	if !btfvalue.IsVoid(t) {
		for range 16 {
			switch tt := t.(type) {
			case *btf.Typedef:
				if strings.HasPrefix(tt.Name, "__be") {
					return nil, false // network byte order
				}
				t = tt.Type
				continue
			case *btf.Const:
				t = tt.Type
				continue
			case *btf.Volatile:
				t = tt.Type
				continue
			}
			break
		}
		i, ok := t.(*btf.Int)
		if !ok || int(i.Size) != size || i.Encoding&btf.Bool != 0 {
			return nil, false
		}
		signed = i.Encoding&btf.Signed != 0
	}
	var v uint64
	var err error
	if signed {
		var x int64
		x, err = strconv.ParseInt(n.Value, 0, 8*size)
		v = uint64(x)
	} else {
		v, err = strconv.ParseUint(n.Value, 0, 8*size)
	}
	if err != nil {
		return nil, false
	}
	out := make([]byte, size)
	PutKeyNumber(out, binary.NativeEndian, v)
	return out, true
}
