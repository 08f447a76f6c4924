package portfilter

// The generated Go and .o files are committed, so that the example builds
// without clang; CI regenerates them and fails if they differ.
//go:generate go tool bpf2go -go-package portfilter -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu" portfilter portfilter.c
