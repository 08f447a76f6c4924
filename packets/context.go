package packets

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"gopkg.in/yaml.v3"
)

// ErrContext reports a context that cannot be read: --ctx, or a packet
// file's ctx.
var ErrContext = badinput.New("bad context")

// ContextField sets one field of the context a program is run with:
// what, besides the frame, the kernel hands it, such as an skb's mark or
// the interface an XDP frame came in on. Which names a program type
// knows, and which values the kernel accepts, is for the runner to check.
type ContextField struct {
	// Name is the field's name in the kernel's struct (xdp_md or
	// __sk_buff), array elements as cb[0].
	Name  string `json:"name"`
	Value uint64 `json:"value"`
	// Device is the interface named where an ifindex was given by name.
	Device string `json:"device,omitempty"`
	// text is the value as given: 0x2a stays 0x2a.
	text string
}

// String is the field as name=value, the value as it was given (0x2a
// stays 0x2a), and the interface's name beside an ifindex given by name.
func (f ContextField) String() string {
	switch {
	case f.Device != "":
		return fmt.Sprintf("%s=%d (%s)", f.Name, f.Value, f.Device)
	case f.text != "":
		return f.Name + "=" + f.text
	}
	return fmt.Sprintf("%s=%d", f.Name, f.Value)
}

// Context is the fields of a program's context that a case sets, in the
// order given; the kernel zeroes the rest. Empty: the kernel's own
// context, as without one.
type Context []ContextField

// String is the fields as name=value, comma-separated, in the order given.
func (c Context) String() string {
	s := make([]string, len(c))
	for i, f := range c {
		s[i] = f.String()
	}
	return strings.Join(s, ",")
}

// Over returns c with the fields of more added, those c has replaced:
// a case's own fields over those given for all.
func (c Context) Over(more Context) Context {
	out := slices.Clone(c)
	for _, f := range more {
		if i := slices.IndexFunc(out, func(g ContextField) bool { return g.Name == f.Name }); i >= 0 {
			out[i] = f
		} else {
			out = append(out, f)
		}
	}
	return out
}

// Get returns a field's value and whether the context sets it.
func (c Context) Get(name string) (uint64, bool) {
	for _, f := range c {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

// contextName is a field name, an array element's with its index:
// "cb[2]". cbShort is the same element without brackets, which shells
// leave alone: "cb2".
var (
	contextName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\[[0-9]+\])?$`)
	cbShort     = regexp.MustCompile(`^cb([0-9])$`)
)

// ParseContext reads --ctx: comma-separated name=value pairs, such as
// "mark=0x2a,priority=3,cb[0]=7,ingress_ifindex=eth0". Values are
// decimal or 0x hex; a field whose name ends in ifindex also takes an
// interface's name. Errors wrap ErrContext.
func ParseContext(s string) (Context, error) {
	var c Context
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not name=value (e.g. mark=0x2a)", ErrContext, pair)
		}
		f, err := contextField(name, value)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrContext, err)
		}
		if c, err = c.with(f); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrContext, err)
		}
	}
	return c, nil
}

// with adds a field the context must not have yet.
func (c Context) with(f ContextField) (Context, error) {
	if _, ok := c.Get(f.Name); ok {
		return c, fmt.Errorf("%s given twice", f.Name)
	}
	return append(c, f), nil
}

// contextField reads one field.
func contextField(name, value string) (ContextField, error) {
	name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
	if m := cbShort.FindStringSubmatch(name); m != nil {
		name = "cb[" + m[1] + "]"
	}
	if !contextName.MatchString(name) {
		return ContextField{}, fmt.Errorf("%q is not a context field name (e.g. mark, cb[0], ingress_ifindex)", name)
	}
	f := ContextField{Name: name}
	if v, ok := parseNumber(value, 1<<64-1); ok {
		f.Value, f.text = v, value
		return f, nil
	}
	if !strings.HasSuffix(name, "ifindex") {
		return f, fmt.Errorf("%s=%q: not a number", name, value)
	}
	iface, err := net.InterfaceByName(value)
	if err != nil {
		return f, fmt.Errorf("%s=%q: neither a number nor a network interface here", name, value)
	}
	f.Value, f.Device = uint64(iface.Index), iface.Name
	return f, nil
}

// context reads a case's ctx: a mapping of field names to values, as
// --ctx has them; an array's elements are name[i] or a list, cb: [1, 2].
func (o *object) context() (Context, error) {
	n, ok := o.fields["ctx"]
	if !ok {
		return nil, nil
	}
	n, path := resolve(n), o.at("ctx")
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return nil, o.p.fail(n, path, "want a mapping of context fields, e.g. {mark: 0x2a, priority: 3}")
	}
	var c Context
	// add reads the value of node, at fieldPath in the file, as name's.
	add := func(node *yaml.Node, fieldPath, name, value string) error {
		f, err := contextField(name, value)
		if err == nil {
			c, err = c.with(f)
		}
		if err != nil {
			return o.p.fail(node, fieldPath, "%v", err)
		}
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolve(n.Content[i+1])
		at := path + "." + key.Value
		switch value.Kind {
		case yaml.ScalarNode:
			if err := add(value, at, key.Value, value.Value); err != nil {
				return nil, err
			}
		case yaml.SequenceNode:
			for j, item := range value.Content {
				item = resolve(item)
				if item.Kind != yaml.ScalarNode {
					return nil, o.p.fail(item, fmt.Sprintf("%s[%d]", at, j), "want a single value")
				}
				if err := add(item, fmt.Sprintf("%s[%d]", at, j), fmt.Sprintf("%s[%d]", key.Value, j), item.Value); err != nil {
					return nil, err
				}
			}
		default:
			return nil, o.p.fail(value, at, "want a value or a list of values")
		}
	}
	return c, nil
}

// WithContext returns the cases with every one's context set to base,
// its own fields over it.
func WithContext(cases []Case, base Context) []Case {
	out := slices.Clone(cases)
	for i := range out {
		out[i].Context = base.Over(out[i].Context)
	}
	return out
}
