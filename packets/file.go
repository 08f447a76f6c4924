package packets

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
	"gopkg.in/yaml.v3"
)

// ReadFile reads the packet cases described in a YAML file; JSON, being
// YAML, works too. Each case is one Ethernet frame with valid lengths and
// checksums, without FCS, zero-padded to the 60-byte Ethernet minimum as a
// NIC would hand it over. Fields are optional unless said otherwise;
// unknown fields are errors, so that a typo is never silently ignored.
// Numbers are decimal or 0x hex. testdata/example.yaml is an example.
//
//	cases:
//	  - name: dns-query        # required, unique, [a-z0-9._-]+: selects the case on the command line
//	    expect: XDP_PASS       # XDP_* or TC_ACT_* action name, or a number; upper-cased
//	    state: first           # the maps its runs see: steady (default), first or flows=N (ParseState)
//	    output: {frame: "…"}   # the frame the program must leave, whole or by layers as the case's
//	    effects: ["map flows: * set *"]   # the checking run's map effects, all of them ('*': any text); [] for none
//	    ctx: {mark: 0x2a, cb: [1, 2]}   # the program's context for this case, over --ctx's
//	    eth:
//	      src: 02:00:00:00:00:01   # default
//	      dst: 02:00:00:00:00:02   # default; ff:ff:ff:ff:ff:ff for an ARP request
//	      vlan: 100                # 802.1Q tag, 0..4094; [100, 200]: QinQ, outer (802.1ad) first
//	      type: 0x88cc             # EtherType: required without ipv4/ipv6/arp, refused with them
//	    # at most one of ipv4 / ipv6 / arp; src and dst are required
//	    ipv4: {src: 192.0.2.1, dst: 198.51.100.1, ttl: 64}              # ttl defaults to 64
//	    ipv6: {src: "2001:db8::1", dst: "2001:db8::2", hop_limit: 64}   # hop_limit defaults to 64
//	    arp: {op: request, sender_ip: 192.0.2.10, target_ip: 192.0.2.1, sender_mac: ..., target_mac: ...}
//	    # at most one of udp / tcp / icmp, and only over ipv4 or ipv6; src and dst are required
//	    udp: {src: 40000, dst: 53}
//	    tcp: {src: 40000, dst: 80, flags: [syn, ack], seq: 1, ack: 0, window: 65535}
//	    # ICMPv4 over ipv4, ICMPv6 over ipv6; type is required: echo-request,
//	    # echo-reply or a number; id and seq follow the checksum, as in an echo
//	    icmp: {type: echo-request, code: 0, id: 1, seq: 1}
//	    # the ipv4/ipv6 packet above, carried in an outer IP header (src, dst
//	    # required, one IP version): ipip, gue (in UDP) or vxlan (in UDP, with
//	    # an Ethernet header of its own)
//	    encap: {type: vxlan, src: 10.0.0.1, dst: 10.0.0.2, ttl: 64, sport: 40000, dport: 4789, vni: 42}
//	    payload: {size: 18}    # size zero bytes, or hex: "48656c6c6f" (spaces allowed); at most 9000 bytes
//	    # or, instead of the layers, the whole frame in hex, as it is (WriteFile writes such)
//	    frame: "02000000000202000000000108004500..."
//
// TCP flags are fin, syn, rst, psh, ack, urg, ece, cwr and ns; window
// defaults to 65535. Without a transport, the IP protocol is 59 (no next
// header). ARP's op is request (the default), reply or a number; sender_mac
// defaults to eth.src, target_mac to zeros for a request and to eth.dst
// otherwise. An encapsulation's dport defaults to 6080 (GUE, katran's) or
// 4789 (VXLAN), sport to 40000, vni to 0; ipip carries IPv4 as protocol 4
// and IPv6 as 41. A case's Source is its outer IP source. ctx takes the
// names and values of --ctx (see ParseContext), a list for an array.
// Errors wrap ErrPacketFile and name the file, line and field.
func ReadFile(path string) ([]Case, error) {
	data, err := safefs.ReadFile(path, MaxCaseFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPacketFile, err)
	}
	return ParseFile(path, data)
}

// ErrPacketFile is wrapped by every error of ReadFile and ParseFile.
var ErrPacketFile = badinput.New("invalid packet file")

// ParseFile parses the contents of a packet file, as ReadFile does; name
// is the file's name in error messages. A file of more than MaxCaseFile
// bytes, or whose YAML could hold more nodes than its cases need (see
// maxNodes), is refused before it is parsed, and one of more than
// MaxCases cases before they are built.
func ParseFile(name string, data []byte) ([]Case, error) {
	p := &parser{file: name}
	switch {
	case len(data) > MaxCaseFile:
		return nil, &fileError{file: name, msg: fmt.Sprintf("%d bytes, more than %d MiB", len(data), MaxCaseFile>>20)}
	case yamlsize.Nodes(data) > maxNodes:
		return nil, &fileError{file: name, msg: fmt.Sprintf("more than %d YAML nodes (collections, entries, aliases), more than %d cases need", maxNodes, MaxCases)}
	}
	root, err := p.document(data)
	if err != nil {
		return nil, err
	}
	top, err := p.object(root, "", "cases")
	if err != nil {
		return nil, err
	}
	list, ok := top.fields["cases"]
	if !ok {
		return nil, p.fail(root, "cases", "required")
	}
	list = resolve(list)
	if list.Kind != yaml.SequenceNode {
		return nil, p.fail(list, "cases", "want a list of cases")
	}
	if len(list.Content) == 0 {
		return nil, p.fail(list, "cases", "no case given")
	}
	if len(list.Content) > MaxCases {
		return nil, p.fail(list, "cases", "%d cases, more than %d", len(list.Content), MaxCases)
	}
	cases := make([]Case, 0, len(list.Content))
	seen := make(map[string]string) // case name: path of the case that has it
	for i, n := range list.Content {
		path := fmt.Sprintf("cases[%d]", i)
		c, err := p.parseCase(n, path)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[c.Name]; ok {
			return nil, p.fail(n, path+".name", "%q already names %s", c.Name, first)
		}
		seen[c.Name] = path
		cases = append(cases, c)
	}
	return cases, nil
}

// fileError places a message at a line of a packet file.
type fileError struct {
	file string
	line int // 0 when the YAML parser gives none
	msg  string
}

func (e *fileError) Error() string {
	if e.line == 0 {
		return fmt.Sprintf("%s: %s", quoted(e.file), e.msg)
	}
	return fmt.Sprintf("%s:%d: %s", quoted(e.file), e.line, e.msg)
}

// quoted is a file's name as an error line shows it: quoted, escapes and
// all, where it holds what a terminal would not show as text (a glob's
// match may be any name), else as it is.
func quoted(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(name)
	}
	return name
}

func (e *fileError) Unwrap() error { return ErrPacketFile }

type parser struct {
	file string
}

// fail reports a problem with node n, found at path.
func (p *parser) fail(n *yaml.Node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return &fileError{file: p.file, line: n.Line, msg: msg}
}

// yamlLine is how yaml.v3 places its syntax errors.
var yamlLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// document returns the root node of the file's only YAML document.
func (p *parser) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &fileError{file: p.file, line: 1, msg: "empty file"}
		}
		return nil, p.syntaxError(err)
	}
	// A second document is most likely a stray "---": refuse it rather
	// than ignore the cases in it.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, p.fail(&next, "", "more than one YAML document")
	case !errors.Is(err, io.EOF):
		return nil, p.syntaxError(err)
	}
	return doc.Content[0], nil
}

func (p *parser) syntaxError(err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &fileError{file: p.file, line: line, msg: m[2]}
	}
	return &fileError{file: p.file, msg: err.Error()}
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// object is a YAML mapping whose keys have been checked against a schema.
type object struct {
	p      *parser
	node   *yaml.Node
	path   string
	fields map[string]*yaml.Node
}

// object checks that n is a mapping with no keys but the known ones, each
// given once.
func (p *parser) object(n *yaml.Node, path string, known ...string) (*object, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil, p.fail(n, path, "want a mapping with fields %s", strings.Join(known, ", "))
	}
	o := &object{p: p, node: n, path: path, fields: make(map[string]*yaml.Node)}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i]
		if key.Kind != yaml.ScalarNode || !slices.Contains(known, key.Value) {
			return nil, p.fail(key, path, "unknown field %q (known: %s)", key.Value, strings.Join(known, ", "))
		}
		if _, ok := o.fields[key.Value]; ok {
			return nil, p.fail(key, o.at(key.Value), "given twice")
		}
		o.fields[key.Value] = n.Content[i+1]
	}
	return o, nil
}

// at is the path of one of the object's fields.
func (o *object) at(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// has reports whether a field was given.
func (o *object) has(key string) bool {
	_, ok := o.fields[key]
	return ok
}

// object returns a field that is itself a mapping, or nil when absent.
func (o *object) object(key string, known ...string) (*object, error) {
	n, ok := o.fields[key]
	if !ok {
		return nil, nil
	}
	return o.p.object(n, o.at(key), known...)
}

// text returns a scalar field and the node holding it; ok is false when
// the field is absent.
func (o *object) text(key string) (s string, n *yaml.Node, ok bool, err error) {
	n, ok = o.fields[key]
	if !ok {
		return "", nil, false, nil
	}
	n = resolve(n)
	if n.Kind != yaml.ScalarNode {
		return "", n, true, o.p.fail(n, o.at(key), "want a single value")
	}
	return n.Value, n, true, nil
}

// required is text for a field that must be given.
func (o *object) required(key string) (string, *yaml.Node, error) {
	s, n, ok, err := o.text(key)
	if err == nil && !ok {
		err = o.p.fail(o.node, o.at(key), "required")
	}
	return s, n, err
}

// number returns a numeric field in 0..limit, or def when absent.
func (o *object) number(key string, def, limit uint64) (uint64, error) {
	s, n, ok, err := o.text(key)
	if err != nil || !ok {
		return def, err
	}
	return o.p.number(n, o.at(key), s, limit)
}

// requiredNumber is number for a field that must be given.
func (o *object) requiredNumber(key string, limit uint64) (uint64, error) {
	s, n, err := o.required(key)
	if err != nil {
		return 0, err
	}
	return o.p.number(n, o.at(key), s, limit)
}

func (p *parser) number(n *yaml.Node, path, s string, limit uint64) (uint64, error) {
	v, ok := parseNumber(s, limit)
	if !ok {
		return 0, p.fail(n, path, "%q is not a number in 0..%d", s, limit)
	}
	return v, nil
}

// parseNumber reads decimal or 0x hex only: strconv's base 0 would read a
// leading 0 as octal, YAML 1.2 would not, and a user means neither.
func parseNumber(s string, limit uint64) (uint64, bool) {
	base, digits := 10, s
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		base, digits = 16, rest
	}
	v, err := strconv.ParseUint(digits, base, 64)
	return v, err == nil && v <= limit
}

var (
	caseName   = regexp.MustCompile(`^[a-z0-9._-]+$`)
	actionName = regexp.MustCompile(`^(XDP|TC_ACT)_[A-Z_]+$`)
)

func (p *parser) parseCase(n *yaml.Node, path string) (Case, error) {
	known := append([]string{"name", "expect", "state", "output", "effects", "ctx", "frame"}, layerFields...)
	o, err := p.object(n, path, known...)
	if err != nil {
		return Case{}, err
	}
	name, nameNode, err := o.required("name")
	if err != nil {
		return Case{}, err
	}
	if !caseName.MatchString(name) {
		return Case{}, p.fail(nameNode, o.at("name"), "%q is not a case name: use a-z, 0-9, '.', '_' and '-'", name)
	}
	expect, err := o.expect()
	if err != nil {
		return Case{}, err
	}
	ctx, err := o.context()
	if err != nil {
		return Case{}, err
	}
	state, err := o.state()
	if err != nil {
		return Case{}, err
	}
	c, err := p.frameOf(o, path)
	if err != nil {
		return Case{}, err
	}
	c.Name, c.Expect, c.Context, c.State = name, expect, ctx, state
	if out, err := o.object("output", append([]string{"frame"}, layerFields...)...); err != nil {
		return Case{}, err
	} else if out != nil {
		want, err := p.frameOf(out, o.at("output"))
		if err != nil {
			return Case{}, err
		}
		c.ExpectOutput = want.Frame
	}
	if c.ExpectEffects, c.CheckEffects, err = o.effects(); err != nil {
		return Case{}, err
	}
	return c, nil
}

// frameOf builds the frame o gives, by layers or whole (frame:), as a
// case with its frame, summary and source.
func (p *parser) frameOf(o *object, path string) (Case, error) {
	if o.has("frame") {
		return p.frameCase(o)
	}
	var f frame
	for _, step := range []func(*object) error{f.network, f.transport, f.encap, f.link, f.payload} {
		if err := step(o); err != nil {
			return Case{}, err
		}
	}
	data, err := f.serialize()
	if err != nil {
		return Case{}, p.fail(o.node, path, "build frame: %v", err)
	}
	src := f.src
	if f.outerSrc.IsValid() {
		src = f.outerSrc
	}
	return Case{Summary: f.summary(), Source: src, Frame: data}, nil
}

// effects returns the map effects a case's checking run must make, each
// as the run shows it ("map verdicts: pushed FIZZ"); check is false when
// the field is absent, and an empty list expects none.
func (o *object) effects() (effects []string, check bool, err error) {
	n, ok := o.fields["effects"]
	if !ok {
		return nil, false, nil
	}
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return nil, true, o.p.fail(n, o.at("effects"), `want a list of effects as the run shows them, e.g. ["map verdicts: pushed FIZZ"]`)
	}
	effects = []string{}
	for i, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.ScalarNode || strings.TrimSpace(e.Value) == "" {
			return nil, true, o.p.fail(e, fmt.Sprintf("%s[%d]", o.at("effects"), i), "want an effect as the run shows it")
		}
		effects = append(effects, strings.TrimSpace(e.Value))
	}
	return effects, true, nil
}

// state returns the case's map state (ParseState), or "" when absent.
func (o *object) state() (string, error) {
	s, n, ok, err := o.text("state")
	if err != nil || !ok {
		return "", err
	}
	st, err := ParseState(s)
	if err != nil {
		return "", o.p.fail(n, o.at("state"), "%v", err)
	}
	return st, nil
}

// expect returns the expected action, upper-cased, or "" when absent. It
// accepts what object.ParseExpect may accept for some program type.
func (o *object) expect() (string, error) {
	s, n, ok, err := o.text("expect")
	if err != nil || !ok {
		return "", err
	}
	s = strings.ToUpper(strings.TrimSpace(s))
	if actionName.MatchString(s) {
		return s, nil
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil && v >= -1 && v <= 0xffffffff {
		return s, nil
	}
	return "", o.p.fail(n, o.at("expect"), "%q is neither an XDP_ or TC_ACT_ action nor a number", s)
}

// frame collects the layers of a case as its fields are read: network
// first, since the transport, encapsulation and link layers depend on it.
type frame struct {
	eth      *layers.Ethernet
	vlans    []*layers.Dot1Q // outermost first; none when untagged
	ip       netLayer        // nil for a non-IP frame
	ipType   layers.EthernetType
	src, dst netip.Addr
	l4       []gopacket.SerializableLayer
	arp      *arpFields // nil unless an ARP frame
	// outer are the encapsulation's headers, between the link layer and
	// ip, with the EtherType, source address and summary of the outer IP.
	outer     []gopacket.SerializableLayer
	outerType layers.EthernetType
	outerSrc  netip.Addr
	outerWhat string
	data      gopacket.Payload
	what      string // the summary of the (inner) packet
}

// maxPayload is a jumbo frame's MTU: more is no packet a NIC would hand over.
const maxPayload = 9000

func (f *frame) network(o *object) error {
	if o.has("ipv4") && o.has("ipv6") {
		return o.p.fail(o.fields["ipv6"], o.path, "give ipv4 or ipv6, not both")
	}
	if o.has("arp") {
		if o.has("ipv4") || o.has("ipv6") {
			return o.p.fail(o.fields["arp"], o.path, "give arp or an IP header, not both")
		}
		return f.parseARP(o)
	}
	if o.has("ipv4") {
		ip, err := o.object("ipv4", "src", "dst", "ttl")
		if err != nil {
			return err
		}
		return f.ipv4(ip)
	}
	ip, err := o.object("ipv6", "src", "dst", "hop_limit")
	if err != nil || ip == nil {
		return err
	}
	return f.ipv6(ip)
}

// Without a transport, an IP header says no header follows (protocol 59),
// so that decoders take the rest as payload.
func (f *frame) ipv4(o *object) error {
	src, dst, err := o.addresses(netip.Addr.Is4, "IPv4")
	if err != nil {
		return err
	}
	ttl, err := o.number("ttl", 64, 255)
	if err != nil {
		return err
	}
	f.ip = &layers.IPv4{
		Version: 4, IHL: 5, TTL: uint8(ttl), Protocol: layers.IPProtocolNoNextHeader,
		SrcIP: src.AsSlice(), DstIP: dst.AsSlice(),
	}
	f.ipType, f.src, f.dst = layers.EthernetTypeIPv4, src, dst
	f.what = fmt.Sprintf("ipv4 %s > %s", src, dst)
	return nil
}

func (f *frame) ipv6(o *object) error {
	src, dst, err := o.addresses(netip.Addr.Is6, "IPv6")
	if err != nil {
		return err
	}
	hops, err := o.number("hop_limit", 64, 255)
	if err != nil {
		return err
	}
	f.ip = &layers.IPv6{
		Version: 6, HopLimit: uint8(hops), NextHeader: layers.IPProtocolNoNextHeader,
		SrcIP: src.AsSlice(), DstIP: dst.AsSlice(),
	}
	f.ipType, f.src, f.dst = layers.EthernetTypeIPv6, src, dst
	f.what = fmt.Sprintf("ipv6 %s > %s", src, dst)
	return nil
}

// addresses returns the required src and dst of an IP header.
func (o *object) addresses(family func(netip.Addr) bool, what string) (src, dst netip.Addr, err error) {
	addr := func(key string) (netip.Addr, error) {
		s, n, err := o.required(key)
		if err != nil {
			return netip.Addr{}, err
		}
		a, err := netip.ParseAddr(s)
		if err != nil || !family(a) || a.Zone() != "" {
			return netip.Addr{}, o.p.fail(n, o.at(key), "%q is not an %s address", s, what)
		}
		return a, nil
	}
	if src, err = addr("src"); err != nil {
		return src, dst, err
	}
	dst, err = addr("dst")
	return src, dst, err
}

// carry sets the IP header's protocol to the transport's.
func (f *frame) carry(proto layers.IPProtocol, l4 ...gopacket.SerializableLayer) {
	switch ip := f.ip.(type) {
	case *layers.IPv4:
		ip.Protocol = proto
	case *layers.IPv6:
		ip.NextHeader = proto
	}
	f.l4 = l4
}

// six suffixes a transport's name over IPv6, as in "udp6".
func (f *frame) six() string {
	if f.src.Is6() {
		return "6"
	}
	return ""
}

func (f *frame) transport(o *object) error {
	var given []string
	for _, key := range []string{"udp", "tcp", "icmp"} {
		if o.has(key) {
			given = append(given, key)
		}
	}
	switch {
	case len(given) == 0:
		return nil
	case len(given) > 1:
		return o.p.fail(o.fields[given[1]], o.path, "give at most one of udp, tcp and icmp, not %s", strings.Join(given, " and "))
	case f.ip == nil:
		return o.p.fail(o.fields[given[0]], o.at(given[0]), "needs ipv4 or ipv6")
	}
	switch given[0] {
	case "udp":
		return f.udp(o)
	case "tcp":
		return f.tcp(o)
	}
	return f.icmp(o)
}

func (f *frame) udp(parent *object) error {
	o, err := parent.object("udp", "src", "dst")
	if err != nil {
		return err
	}
	src, dst, err := o.ports()
	if err != nil {
		return err
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(src), DstPort: layers.UDPPort(dst)}
	f.carry(layers.IPProtocolUDP, udp)
	f.what = fmt.Sprintf("udp%s %s > %s", f.six(), netip.AddrPortFrom(f.src, src), netip.AddrPortFrom(f.dst, dst))
	return nil
}

type tcpFlag struct {
	name string
	set  func(*layers.TCP)
}

// tcpFlags are the TCP flags in the order the header has them, from the
// lowest bit; summaries list them in this order.
var tcpFlags = []tcpFlag{
	{"fin", func(t *layers.TCP) { t.FIN = true }},
	{"syn", func(t *layers.TCP) { t.SYN = true }},
	{"rst", func(t *layers.TCP) { t.RST = true }},
	{"psh", func(t *layers.TCP) { t.PSH = true }},
	{"ack", func(t *layers.TCP) { t.ACK = true }},
	{"urg", func(t *layers.TCP) { t.URG = true }},
	{"ece", func(t *layers.TCP) { t.ECE = true }},
	{"cwr", func(t *layers.TCP) { t.CWR = true }},
	{"ns", func(t *layers.TCP) { t.NS = true }},
}

func (f *frame) tcp(parent *object) error {
	o, err := parent.object("tcp", "src", "dst", "flags", "seq", "ack", "window")
	if err != nil {
		return err
	}
	src, dst, err := o.ports()
	if err != nil {
		return err
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src), DstPort: layers.TCPPort(dst)}
	seq, err := o.number("seq", 0, 0xffffffff)
	if err != nil {
		return err
	}
	ack, err := o.number("ack", 0, 0xffffffff)
	if err != nil {
		return err
	}
	window, err := o.number("window", 0xffff, 0xffff)
	if err != nil {
		return err
	}
	tcp.Seq, tcp.Ack, tcp.Window = uint32(seq), uint32(ack), uint16(window)
	given, err := o.flags()
	if err != nil {
		return err
	}
	var set []string
	for _, flag := range tcpFlags {
		if given[flag.name] {
			flag.set(tcp)
			set = append(set, flag.name)
		}
	}
	name := "tcp" + f.six()
	if len(set) > 0 {
		name += " [" + strings.Join(set, ",") + "]"
	}
	f.carry(layers.IPProtocolTCP, tcp)
	f.what = fmt.Sprintf("%s %s > %s", name, netip.AddrPortFrom(f.src, src), netip.AddrPortFrom(f.dst, dst))
	return nil
}

// flags returns the set of TCP flags listed in the flags field.
func (o *object) flags() (map[string]bool, error) {
	set := make(map[string]bool)
	n, ok := o.fields["flags"]
	if !ok {
		return set, nil
	}
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return nil, o.p.fail(n, o.at("flags"), "want a list, e.g. [syn, ack]")
	}
	for i, item := range n.Content {
		item = resolve(item)
		name := strings.ToLower(item.Value)
		known := slices.ContainsFunc(tcpFlags, func(f tcpFlag) bool { return f.name == name })
		if item.Kind != yaml.ScalarNode || !known {
			return nil, o.p.fail(item, fmt.Sprintf("%s[%d]", o.at("flags"), i),
				"unknown TCP flag %q (known: fin, syn, rst, psh, ack, urg, ece, cwr, ns)", item.Value)
		}
		set[name] = true
	}
	return set, nil
}

// ports returns the required src and dst ports of a UDP or TCP header.
func (o *object) ports() (src, dst uint16, err error) {
	s, err := o.requiredNumber("src", 0xffff)
	if err != nil {
		return 0, 0, err
	}
	d, err := o.requiredNumber("dst", 0xffff)
	return uint16(s), uint16(d), err
}

// icmpTypes are the ICMP types known by name, for ICMPv4 and ICMPv6.
var icmpTypes = []struct {
	name   string
	v4, v6 uint8
}{
	{"echo-request", layers.ICMPv4TypeEchoRequest, layers.ICMPv6TypeEchoRequest},
	{"echo-reply", layers.ICMPv4TypeEchoReply, layers.ICMPv6TypeEchoReply},
}

func (f *frame) icmp(parent *object) error {
	o, err := parent.object("icmp", "type", "code", "id", "seq")
	if err != nil {
		return err
	}
	typ, label, err := f.icmpType(o)
	if err != nil {
		return err
	}
	code, err := o.number("code", 0, 255)
	if err != nil {
		return err
	}
	id, err := o.number("id", 0, 0xffff)
	if err != nil {
		return err
	}
	seq, err := o.number("seq", 0, 0xffff)
	if err != nil {
		return err
	}
	if code != 0 {
		label += fmt.Sprintf(" code %d", code)
	}
	if f.src.Is4() {
		f.carry(layers.IPProtocolICMPv4, &layers.ICMPv4{
			TypeCode: layers.CreateICMPv4TypeCode(typ, uint8(code)), Id: uint16(id), Seq: uint16(seq),
		})
	} else {
		// gopacket's ICMPv6 is the first 4 bytes only; id and seq follow
		// as in an echo, the same 8-byte header as ICMPv4's.
		icmp := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(typ, uint8(code))}
		f.carry(layers.IPProtocolICMPv6, icmp, &layers.ICMPv6Echo{Identifier: uint16(id), SeqNumber: uint16(seq)})
	}
	f.what = fmt.Sprintf("icmp%s %s %s > %s", f.six(), label, f.src, f.dst)
	return nil
}

// icmpType returns the required ICMP type, by name or number, and its
// name for the summary.
func (f *frame) icmpType(o *object) (uint8, string, error) {
	s, n, err := o.required("type")
	if err != nil {
		return 0, "", err
	}
	name := strings.ToLower(s)
	for _, t := range icmpTypes {
		if t.name == name {
			return f.pick(t.v4, t.v6), name, nil
		}
	}
	v, ok := parseNumber(s, 255)
	if !ok {
		return 0, "", o.p.fail(n, o.at("type"), "%q is neither echo-request, echo-reply nor a number in 0..255", s)
	}
	for _, t := range icmpTypes {
		if f.pick(t.v4, t.v6) == uint8(v) {
			return uint8(v), t.name, nil
		}
	}
	return uint8(v), fmt.Sprintf("type %d", v), nil
}

// pick returns the ICMPv4 or the ICMPv6 value, as the frame's IP version.
func (f *frame) pick(v4, v6 uint8) uint8 {
	if f.src.Is4() {
		return v4
	}
	return v6
}

func (f *frame) link(o *object) error {
	eth, err := o.object("eth", "src", "dst", "vlan", "type")
	if err != nil {
		return err
	}
	if eth == nil {
		eth = &object{p: o.p, node: o.node, path: o.at("eth")}
	}
	f.eth = &layers.Ethernet{}
	if f.eth.SrcMAC, err = eth.mac("src", sourceMAC); err != nil {
		return err
	}
	if f.eth.DstMAC, err = eth.mac("dst", destMAC); err != nil {
		return err
	}
	if f.eth.EthernetType, err = f.etherType(eth); err != nil {
		return err
	}
	if f.arp != nil {
		f.arp.complete(f.eth, eth.has("dst"))
	}
	ids, err := eth.vlanIDs()
	if err != nil || len(ids) == 0 {
		return err
	}
	// One tag is 802.1Q; of two (QinQ), the outer is 802.1ad's.
	inner := f.eth.EthernetType
	for i := len(ids) - 1; i >= 0; i-- {
		f.vlans = append([]*layers.Dot1Q{{VLANIdentifier: ids[i], Type: inner}}, f.vlans...)
		inner = layers.EthernetTypeDot1Q
		if i == 0 && len(ids) == 2 {
			inner = layers.EthernetTypeQinQ
		}
	}
	f.eth.EthernetType = inner
	return nil
}

// maxTags is QinQ's: an outer service tag and an inner customer tag.
const maxTags = 2

// vlanIDs reads eth.vlan: one VLAN ID, or a list of up to two, outermost
// first.
func (o *object) vlanIDs() ([]uint16, error) {
	n, ok := o.fields["vlan"]
	if !ok {
		return nil, nil
	}
	n = resolve(n)
	items, path := []*yaml.Node{n}, o.at("vlan")
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 || len(items) > maxTags {
			return nil, o.p.fail(n, path, "want one or two VLAN IDs (QinQ: outer, inner), not %d", len(items))
		}
	}
	var ids []uint16
	for i, item := range items {
		at := path
		if n.Kind == yaml.SequenceNode {
			at = fmt.Sprintf("%s[%d]", path, i)
		}
		item = resolve(item)
		if item.Kind != yaml.ScalarNode {
			return nil, o.p.fail(item, at, "want a VLAN ID")
		}
		id, err := o.p.number(item, at, item.Value, 4094)
		if err != nil {
			return nil, err
		}
		ids = append(ids, uint16(id))
	}
	return ids, nil
}

// etherType is the encapsulation's, the IP header's or ARP's, or else the
// one given: an Ethernet frame with none would be meaningless.
func (f *frame) etherType(eth *object) (layers.EthernetType, error) {
	switch {
	case (f.ip != nil || f.arp != nil) && eth.has("type"):
		return 0, eth.p.fail(eth.fields["type"], eth.at("type"), "set by ipv4/ipv6/arp: give it only for another frame")
	case f.outer != nil:
		return f.outerType, nil
	case f.ip != nil:
		return f.ipType, nil
	case f.arp != nil:
		return layers.EthernetTypeARP, nil
	case !eth.has("type"):
		return 0, eth.p.fail(eth.node, eth.at("type"), "required without ipv4, ipv6 or arp")
	}
	v, err := eth.number("type", 0, 0xffff)
	if err != nil {
		return 0, err
	}
	// Below 0x0600 the field is an 802.3 length, not a type.
	if v < 0x0600 {
		return 0, eth.p.fail(eth.fields["type"], eth.at("type"), "%#04x is a length, not an EtherType (want 0x0600..0xffff)", v)
	}
	f.what = fmt.Sprintf("ethertype %#04x", v)
	return layers.EthernetType(v), nil
}

func (o *object) mac(key string, def net.HardwareAddr) (net.HardwareAddr, error) {
	s, n, ok, err := o.text(key)
	if err != nil || !ok {
		return def, err
	}
	mac, err := net.ParseMAC(s)
	if err != nil || len(mac) != 6 {
		return nil, o.p.fail(n, o.at(key), "%q is not a MAC address", s)
	}
	return mac, nil
}

func (f *frame) payload(o *object) error {
	pl, err := o.object("payload", "size", "hex")
	if err != nil || pl == nil {
		return err
	}
	if pl.has("size") && pl.has("hex") {
		return o.p.fail(pl.node, pl.path, "give size or hex, not both")
	}
	if pl.has("size") {
		size, err := pl.number("size", 0, maxPayload)
		f.data = make(gopacket.Payload, size)
		return err
	}
	s, n, ok, err := pl.text("hex")
	if err != nil || !ok {
		return err
	}
	digits := strings.Join(strings.Fields(s), "")
	if len(digits)%2 != 0 {
		return o.p.fail(n, pl.at("hex"), "odd number of hex digits (%d)", len(digits))
	}
	data, err := hex.DecodeString(digits)
	if err != nil {
		return o.p.fail(n, pl.at("hex"), "not hex: %v", err)
	}
	if len(data) > maxPayload {
		return o.p.fail(n, pl.at("hex"), "%d bytes, more than %d", len(data), maxPayload)
	}
	f.data = data
	return nil
}

func (f *frame) summary() string {
	what := f.what
	if f.outerWhat != "" {
		what = f.outerWhat + ", inner " + what
	}
	switch len(f.vlans) {
	case 1:
		return fmt.Sprintf("vlan %d %s", f.vlans[0].VLANIdentifier, what)
	case 2:
		return fmt.Sprintf("qinq %d,%d %s", f.vlans[0].VLANIdentifier, f.vlans[1].VLANIdentifier, what)
	}
	return what
}

func (f *frame) serialize() ([]byte, error) {
	stack := []gopacket.SerializableLayer{f.eth}
	for _, tag := range f.vlans {
		stack = append(stack, tag)
	}
	stack = append(stack, f.outer...)
	if f.ip != nil {
		stack = append(stack, f.ip)
	}
	if f.arp != nil {
		stack = append(stack, &f.arp.ARP)
	}
	return buildFrame(append(append(stack, f.l4...), f.data)...)
}
