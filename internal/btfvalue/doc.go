// Package btfvalue turns map keys, values and global variables into
// bytes and back as their BTF types say: YAML numbers, addresses, enum
// and action names, structs by member, big-endian fields as numbers. The
// object loader uses it for --map-init files and to show a checking
// run's map effects.
package btfvalue
