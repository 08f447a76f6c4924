package profile

import "github.com/xdpmicro/xdpmicro/results"

// A profile across kernels (profile --kernel): the same profile run on
// each kernel, booted under QEMU; package report renders it.

// KernelsSchema identifies the JSON of a profile across kernels.
const KernelsSchema = results.KernelProfilesSchema

// A profile run on several kernels, as results saves it.
type (
	KernelProfiles = results.KernelProfiles
	KernelProfile  = results.KernelProfile
)
