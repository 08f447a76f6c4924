// Package portfilter is a worked example of benchmarking an XDP program
// with xdpmicro from go test, as a Go project that loads its programs
// through bpf2go would: portfilter.c drops packets to blocked ports, and
// portfilter_test.go benchmarks it, a sub-benchmark per packet.
//
//	sudo go test -bench . ./examples/portfilter
//
// Package portfilter's own code is what such a project ships: loading the
// filter and blocking ports.
package portfilter

import (
	"fmt"

	"github.com/cilium/ebpf"
)

// Spec is the filter's collection with ports blocked: their entries in
// blocked_ports, each counting the packets dropped from zero.
func Spec(ports ...uint16) (*ebpf.CollectionSpec, error) {
	spec, err := loadPortfilter()
	if err != nil {
		return nil, fmt.Errorf("portfilter: %w", err)
	}
	m := spec.Maps["blocked_ports"]
	for _, p := range ports {
		m.Contents = append(m.Contents, ebpf.MapKV{Key: p, Value: uint64(0)})
	}
	return spec, nil
}

// Filter is the filter in the kernel, not attached.
type Filter struct {
	objs portfilterObjects
}

// Load loads the filter with ports blocked, ready to attach.
func Load(ports ...uint16) (*Filter, error) {
	spec, err := Spec(ports...)
	if err != nil {
		return nil, err
	}
	f := &Filter{}
	if err := spec.LoadAndAssign(&f.objs, nil); err != nil {
		return nil, fmt.Errorf("portfilter: %w", err)
	}
	return f, nil
}

// Program is the XDP program, to attach to an interface.
func (f *Filter) Program() *ebpf.Program { return f.objs.XdpPortFilter }

// Dropped is the number of packets dropped to port.
func (f *Filter) Dropped(port uint16) (uint64, error) {
	var n uint64
	if err := f.objs.BlockedPorts.Lookup(port, &n); err != nil {
		return 0, fmt.Errorf("portfilter: port %d: %w", port, err)
	}
	return n, nil
}

// Close unloads the filter.
func (f *Filter) Close() error { return f.objs.Close() }
