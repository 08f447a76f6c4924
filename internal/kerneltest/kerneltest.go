// Package kerneltest helps tests look at the kernel's own lists of BPF
// programs and maps, to check that a run leaves nothing loaded.
package kerneltest

import (
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"
)

// Programs returns the IDs of the kernel's programs named name. Tests of
// different packages run in parallel, so a test counts only programs of a
// name no other test loads.
func Programs(t testing.TB, name string) []ebpf.ProgramID {
	t.Helper()
	return named(t, ebpf.ProgramGetNextID, func(id ebpf.ProgramID) (string, error) {
		p, err := ebpf.NewProgramFromID(id)
		if err != nil {
			return "", err
		}
		defer p.Close()
		info, err := p.Info()
		if err != nil {
			return "", err
		}
		return info.Name, nil
	}, name)
}

// Maps returns the IDs of the kernel's maps named name.
func Maps(t testing.TB, name string) []ebpf.MapID {
	t.Helper()
	return named(t, ebpf.MapGetNextID, func(id ebpf.MapID) (string, error) {
		m, err := ebpf.NewMapFromID(id)
		if err != nil {
			return "", err
		}
		defer m.Close()
		info, err := m.Info()
		if err != nil {
			return "", err
		}
		return info.Name, nil
	}, name)
}

func named[ID ~uint32](t testing.TB, next func(ID) (ID, error), nameOf func(ID) (string, error), name string) []ID {
	var ids []ID
	for id := ID(0); ; {
		n, err := next(id)
		if errors.Is(err, os.ErrNotExist) {
			return ids
		}
		if err != nil {
			t.Fatal(err)
		}
		id = n
		// An object freed meanwhile is simply not there any more.
		if got, err := nameOf(id); err == nil && got == name {
			ids = append(ids, id)
		}
	}
}
