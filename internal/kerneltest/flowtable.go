package kerneltest

import (
	"bytes"
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
	coll := LoadFlowtable(t, FlowtableSpec(t, FlowtableBatch))
	ret, err := coll.Programs["flowtable_reference"].Run(&ebpf.RunOptions{Data: frame, Repeat: 1})
	if err != nil {
		t.Fatalf("running flowtable_reference: %v", err)
	}
	if ret != 2 { // XDP_PASS
		t.Fatalf("flowtable_reference returned %d, want XDP_PASS: the frame is no TCP or UDP over IPv4", ret)
	}
	var ref FlowtableRef
	if err := coll.Variables["ref"].Get(&ref); err != nil {
		t.Fatal(err)
	}
	if ref.Batch != FlowtableBatch {
		t.Fatalf("flowtable_reference ran batches of %d, want %d", ref.Batch, FlowtableBatch)
	}
	// Every call of the miss loop missed and every one of the hit loop hit.
	var stats FlowtableStats
	if err := coll.Variables["stats"].Get(&stats); err != nil {
		t.Fatal(err)
	}
	if want := (FlowtableStats{Hits: FlowtableBatch, Misses: FlowtableBatch + 1}); stats != want {
		t.Fatalf("flowtable_reference left stats %+v, want %+v", stats, want)
	}
	n := float64(ref.Batch)
	return (float64(ref.MissTotal) - float64(ref.ResetTotal)) / n,
		(float64(ref.HitTotal) - float64(ref.EmptyTotal)) / n
}
