package kerneltest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
)

// testObject is an object as ReadTestObject reads it.
type testObject struct {
	Name string
	ELF  []byte
	Spec *ebpf.CollectionSpec
	Prog *ebpf.Program
}

// The project's stateful test program, bpf/testdata/flowtable.c, and its
// in-BPF reference: what tests of the map states (--state) hold the
// tool's figures against.

// FlowtableBatch is the calls per timed batch of flowtable_reference.
const FlowtableBatch = 1000

// FlowtableRef mirrors flowtable.c's struct ref_result.
type FlowtableRef struct {
	MissTotal, ResetTotal, HitTotal, EmptyTotal, Batch, Sink uint64
}

// FlowtableStats mirrors flowtable.c's stats.
type FlowtableStats struct {
	Hits, Misses, Drops uint64
}

// FlowtableSpec reads bpf/testdata/flowtable.o, with the reference's
// batch set to batch. It runs as it is: its ring and backends are
// initialised globals, so it needs no --map-init.
func FlowtableSpec(t testing.TB, batch uint32) *ebpf.CollectionSpec {
	t.Helper()
	obj := ReadTestObject[testObject](t, "flowtable.o")
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(obj.ELF))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := spec.Variables["ref_batch"]
	if !ok {
		t.Fatal("flowtable.o has no ref_batch")
	}
	if err := v.Set(batch); err != nil {
		t.Fatal(err)
	}
	return spec
}

// LoadFlowtable loads spec until the test ends.
func LoadFlowtable(t testing.TB, spec *ebpf.CollectionSpec) *ebpf.Collection {
	t.Helper()
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		t.Fatalf("loading flowtable.o: %v", err)
	}
	t.Cleanup(coll.Close)
	return coll
}

// FlowtableReference is the in-BPF reference for xdpmicro's stateful
// regimes on frame, a frame of one TCP or UDP flow: it loads flowtable.o
// afresh, runs flowtable_reference once (repeat 1) and returns what a
// call of flowtable costs, in ns, on a new flow (an LRU miss: --state
// first) and on a known one (a hit: --state steady). Each is a batch's
// time less its loop's and reset's, over the batch; noise on a busy host
// can make either small or negative, so compare, don't threshold.
func FlowtableReference(t testing.TB, frame []byte) (missNS, hitNS float64) {
	t.Helper()
	miss, hit, err := NewFlowtableReference(t).Run(frame)
	if err != nil {
		t.Fatal(err)
	}
	return miss, hit
}

// Reference is flowtable.o loaded once, to run its reference again and
// again: from any goroutine (Run reports, never fails the test).
type Reference struct {
	coll *ebpf.Collection
}

// NewFlowtableReference loads flowtable.o until the test ends.
func NewFlowtableReference(t testing.TB) *Reference {
	t.Helper()
	return &Reference{coll: LoadFlowtable(t, FlowtableSpec(t, FlowtableBatch))}
}

// Run runs flowtable_reference once on frame, as FlowtableReference.
func (r *Reference) Run(frame []byte) (missNS, hitNS float64, err error) {
	var before, after FlowtableStats
	if err := r.coll.Variables["stats"].Get(&before); err != nil {
		return 0, 0, err
	}
	ret, err := r.coll.Programs["flowtable_reference"].Run(&ebpf.RunOptions{Data: frame, Repeat: 1})
	if err != nil {
		return 0, 0, fmt.Errorf("running flowtable_reference: %w", err)
	}
	if ret != 2 { // XDP_PASS
		return 0, 0, fmt.Errorf("flowtable_reference returned %d, want XDP_PASS: the frame is no TCP or UDP over IPv4", ret)
	}
	var ref FlowtableRef
	if err := r.coll.Variables["ref"].Get(&ref); err != nil {
		return 0, 0, err
	}
	if ref.Batch != FlowtableBatch {
		return 0, 0, fmt.Errorf("flowtable_reference ran batches of %d, want %d", ref.Batch, FlowtableBatch)
	}
	// Every call of the miss loop missed and every one of the hit loop
	// hit; the hit loop's priming call missed.
	if err := r.coll.Variables["stats"].Get(&after); err != nil {
		return 0, 0, err
	}
	got := FlowtableStats{Hits: after.Hits - before.Hits, Misses: after.Misses - before.Misses, Drops: after.Drops - before.Drops}
	if want := (FlowtableStats{Hits: FlowtableBatch, Misses: FlowtableBatch + 1}); got != want {
		return 0, 0, fmt.Errorf("flowtable_reference counted %+v, want %+v", got, want)
	}
	n := float64(ref.Batch)
	return (float64(ref.MissTotal) - float64(ref.ResetTotal)) / n,
		(float64(ref.HitTotal) - float64(ref.EmptyTotal)) / n, nil
}
