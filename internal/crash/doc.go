// Package crash turns a panic, which is a bug in xdpmicro and never the
// user's input nor the kernel's refusal, into its own exit code and a
// message that says where to report it: without it Go's runtime exits 2,
// the code that tells a user (and CI) their input was wrong.
package crash
