// Package jsonsize bounds what encoding/json would allocate decoding a
// document into a Go value, before it decodes it: the bytes a value
// takes in memory are not its bytes in the file, and a saved result of
// 256 MiB whose arrays held empty objects ("results": [{}, {}, …]) would
// have decoded into tens of gigabytes of structs, each of hundreds of
// bytes for three of JSON. Every saved JSON xdpmicro reads (saved
// results, baselines, a guest's reply, the phase history) is counted
// here first and refused past its budget.
package jsonsize
