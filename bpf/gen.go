package bpf

// The four builds of one source. The generated Go and .o files are committed,
// so building xdpmicro needs no clang; .ci/run regenerates them and fails if
// they differ. -idirafter finds <asm/types.h> on Debian's multiarch layouts.
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -DVERSION=1" fizzbuzzV1 fizzbuzz.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -DVERSION=2" fizzbuzzV2 fizzbuzz.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -DVERSION=3" fizzbuzzV3 fizzbuzz.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -DVERSION=4" fizzbuzzV4 fizzbuzz.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu" empty empty.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu" ladder ladder.c
//go:generate go tool bpf2go -go-package bpf -cflags "-O2 -g -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu" restore restore.c

// Objects for tests elsewhere, built with clang alone. The build directory
// is mapped to "." and DWARF stripped, so that they are reproducible.
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/multi.c -o testdata/multi.o && llvm-strip -g testdata/multi.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/reject.c -o testdata/reject.o && llvm-strip -g testdata/reject.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/maps.c -o testdata/maps.o && llvm-strip -g testdata/maps.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/rewrite.c -o testdata/rewrite.o && llvm-strip -g testdata/rewrite.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/calls.c -o testdata/calls.o && llvm-strip -g testdata/calls.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/proto.c -o testdata/proto.o && llvm-strip -g testdata/proto.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/ctx.c -o testdata/ctx.o && llvm-strip -g testdata/ctx.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/ports.c -o testdata/ports.o && llvm-strip -g testdata/ports.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/tailcall.c -o testdata/tailcall.o && llvm-strip -g testdata/tailcall.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/sections.c -o testdata/sections.o && llvm-strip -g testdata/sections.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/dynptr.c -o testdata/dynptr.o && llvm-strip -g testdata/dynptr.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/badmaps.c -o testdata/badmaps.o && llvm-strip -g testdata/badmaps.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/resize.c -o testdata/resize.o && llvm-strip -g testdata/resize.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/xsk.c -o testdata/xsk.o && llvm-strip -g testdata/xsk.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/alternate.c -o testdata/alternate.o && llvm-strip -g testdata/alternate.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/devmap.c -o testdata/devmap.o && llvm-strip -g testdata/devmap.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/attach.c -o testdata/attach.o && llvm-strip -g testdata/attach.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/worst.c -o testdata/worst.o && llvm-strip -g testdata/worst.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/mixed.c -o testdata/mixed.o && llvm-strip -g testdata/mixed.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/nested.c -o testdata/nested.o && llvm-strip -g testdata/nested.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/leak.c -o testdata/leak.o && llvm-strip -g testdata/leak.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/bigmaps.c -o testdata/bigmaps.o && llvm-strip -g testdata/bigmaps.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/flowtable.c -o testdata/flowtable.o && llvm-strip -g testdata/flowtable.o"
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -c testdata/largearrays.c -o testdata/largearrays.o && llvm-strip -g testdata/largearrays.o"

// v3 without line info (.BTF.ext removed; .BTF kept for its map): profiles by instruction index.
//go:generate sh -c "clang -O2 -g -Wall -target bpf -fdebug-prefix-map=${DOLLAR}(pwd)=. -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include/aarch64-linux-gnu -DVERSION=3 -c fizzbuzz.c -o testdata/nolines.o && llvm-strip -g testdata/nolines.o && llvm-objcopy --remove-section .BTF.ext testdata/nolines.o"
