package btfvalue

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"
)

func yamlNode(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// now, now+D and now-D are the kernel's monotonic clock, as
// bpf_ktime_get_ns reads it, plus D, in a 64-bit field only.
func TestEncodeNow(t *testing.T) {
	u64 := &btf.Int{Name: "__u64", Size: 8}
	clock := func() uint64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			t.Fatal(err)
		}
		return uint64(ts.Nano())
	}
	for _, tt := range []struct {
		yaml   string
		offset int64
	}{{"now", 0}, {"now+30s", 30e9}, {"now-1ms", -1e6}} {
		before := clock()
		b, err := Encode(u64, yamlNode(t, tt.yaml))
		after := clock()
		if err != nil {
			t.Fatalf("%s: %v", tt.yaml, err)
		}
		got := int64(binary.NativeEndian.Uint64(b)) - tt.offset
		if got < int64(before) || got > int64(after) {
			t.Errorf("%s: %d less %d is not between the clock's %d and %d", tt.yaml, got+tt.offset, tt.offset, before, after)
		}
	}
	for _, bad := range []string{"now+", "now*2", "now-100000h"} {
		if _, err := Encode(u64, yamlNode(t, bad)); err == nil {
			t.Errorf("%s: encoded, want an error", bad)
		}
	}
	if _, err := Encode(&btf.Int{Name: "__u32", Size: 4}, yamlNode(t, "now")); err == nil {
		t.Error("now in a 32-bit field: encoded, want an error")
	}
}

// Values are written as a user reads them in C and in packets, and come
// back formatted the same way.
func TestEncodeValue(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the expected bytes are little-endian")
	}
	u8 := &btf.Int{Name: "__u8", Size: 1}
	u16 := &btf.Int{Name: "__u16", Size: 2}
	u32 := &btf.Int{Name: "__u32", Size: 4}
	be16 := &btf.Typedef{Name: "__be16", Type: u16}
	be32 := &btf.Typedef{Name: "__be32", Type: u32}
	boolean := &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}
	in6 := &btf.Struct{Name: "in6_addr", Size: 16, Members: []btf.Member{{Name: "in6_u", Type: &btf.Union{Size: 16, Members: []btf.Member{
		{Name: "u6_addr8", Type: &btf.Array{Type: u8, Nelems: 16}},
		{Name: "u6_addr32", Type: &btf.Array{Type: be32, Nelems: 4}},
	}}}}}
	// struct vip { union { __be32 vip; __be32 vipv6[4]; }; __be16 port; __u8 proto; __u8 flags:3, hash:5; }
	vip := &btf.Struct{Name: "vip", Size: 20, Members: []btf.Member{
		{Type: &btf.Union{Size: 16, Members: []btf.Member{{Name: "vip", Type: be32}, {Name: "vipv6", Type: &btf.Array{Type: be32, Nelems: 4}}}}},
		{Name: "port", Type: be16, Offset: 128},
		{Name: "proto", Type: u8, Offset: 144},
		{Name: "flags", Type: u8, Offset: 152, BitfieldSize: 3},
		{Name: "hash", Type: u8, Offset: 155, BitfieldSize: 5},
	}}
	mac := &btf.Struct{Name: "ethaddr", Size: 6, Members: []btf.Member{{Name: "addr", Type: &btf.Array{Type: u8, Nelems: 6}}}}
	ifname := &btf.Array{Type: &btf.Int{Name: "char", Size: 1, Encoding: btf.Char}, Nelems: 8}
	for _, tt := range []struct {
		name   string
		t      btf.Type
		yaml   string
		hex    string
		format string
	}{
		{"plain", u32, "80", "50000000", "80"},
		{"htons on a u32, as xdp-filter keys ports", u32, "htons(80)", "00500000", "20480"},
		{"htonl", u32, "htonl(0x0a000001)", "0a000001", "16777226"},
		{"a __be16 written naturally", be16, "80", "0050", "80"},
		{"htons on a __be16 is as C has it", be16, "htons(80)", "0050", "80"},
		{"an action name", u32, "XDP_TX", "03000000", "3"},
		{"an IPv4 address in a u32", u32, "10.0.0.1", "0a000001", "16777226"},
		{"an IPv6 address", in6, "'2001:db8::1'", "20010db8000000000000000000000001", "{in6_u: {u6_addr8: 0x20010db8000000000000000000000001 | u6_addr32: [536939960, 0, 0, 1]}}"},
		{"a MAC address", mac, "02:00:00:00:00:01", "020000000001", "{addr: 0x020000000001}"},
		{"a bool", boolean, "true", "01", "true"},
		{"a char array from a string", ifname, "eth0", "6574683000000000", "0x6574683000000000"},
		{"anonymous union, big-endian port, bitfields", vip, "{vip: 10.0.0.1, port: 443, proto: 6, flags: 5, hash: 17}",
			"0a000001000000000000000000000000" + "01bb" + "06" + "8d",
			"{vip: 167772161 | vipv6: [167772161, 0, 0, 0], port: 443, proto: 6, flags: 5, hash: 17}"},
	} {
		b, err := Encode(tt.t, yamlNode(t, tt.yaml))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := hex.EncodeToString(b); got != tt.hex {
			t.Errorf("%s: %s gives %s, want %s", tt.name, tt.yaml, got, tt.hex)
		}
		if got := Format(tt.t, b); got != tt.format {
			t.Errorf("%s: formatted %q, want %q", tt.name, got, tt.format)
		}
	}
	for _, tt := range []struct {
		t    btf.Type
		yaml string
		msg  string
	}{
		{vip, "{flags: 8}", "8 does not fit in its 3 bits"},
		{vip, "{vip6: 1}", `has no member "vip6" (members: vip, vipv6, port, proto, flags, hash)`},
		{be16, "htonl(1)", "want htonl(N)"},
		{u32, "'2001:db8::1'", "is not an unsigned 32-bit number"},
		{ifname, "a-very-long-name", "longer than 8 bytes"},
	} {
		if _, err := Encode(tt.t, yamlNode(t, tt.yaml)); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %q", tt.yaml, err, tt.msg)
		}
	}
}
