// Package badinput marks the errors that are the user's input being wrong
// (an object, a case, a file, a flag's value), as opposed to the kernel or
// the machine refusing: every such error wraps Err, so that a caller tells
// them apart with one errors.Is, and the command exits 2 for the one and 1
// for the other.
package badinput
