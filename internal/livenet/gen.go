package livenet

// The counters' two builds, as bpf/gen.go builds the bundled programs: the
// generated Go and .o files are committed, so building needs no clang.
//go:generate go tool bpf2go -go-package livenet -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu" counters counters.c
