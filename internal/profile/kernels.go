package profile

import (
	"errors"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/results"
)

// A profile across kernels (profile --kernel): the same profile run on
// each kernel, booted under QEMU; package report renders it.

// KernelsSchema identifies the JSON of a profile across kernels.
const KernelsSchema = results.KernelProfilesSchema

// A profile run on several kernels, as results saves it.
type (
	KernelProfiles = results.KernelProfiles
	KernelProfile  = results.KernelProfile
)

// OfKernels gathers the outcomes of profile --format json on each
// kernel: each kernel's profile, or why it has none.
func OfKernels(outcomes []kernels.Outcome, args []string) KernelProfiles {
	byKernel := map[string]*Report{}
	runs := kernels.Runs(outcomes, args, func(k *results.KernelRun, stdout []byte) error {
		// A guest's output is no more trusted than a file: it passes a
		// saved profile's checks before anything renders it.
		rep, err := results.ParseProfile("profile's output", stdout)
		if err != nil {
			return errors.New("unreadable profile: " + strings.TrimPrefix(err.Error(), results.ErrBadResult.Error()+": "))
		}
		byKernel[k.Kernel] = rep
		return nil
	})
	kp := KernelProfiles{Schema: KernelsSchema}
	for _, k := range runs.Kernels {
		kp.Kernels = append(kp.Kernels, KernelProfile{KernelRun: k, Profile: byKernel[k.Kernel]})
	}
	return kp
}
