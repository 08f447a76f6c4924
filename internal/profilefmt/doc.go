// Package profilefmt renders a profile (results.ProfileReport) as text
// for people, JSON, pprof's profile.proto and Callgrind's format, and a
// profile across kernels (results.KernelProfiles) as a table and JSON.
// report's registry of formats calls it; it renders what results holds,
// with the program's Layout where a format needs its calls, and computes
// or loads nothing.
package profilefmt
