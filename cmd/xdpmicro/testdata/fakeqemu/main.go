// Command fakeqemu stands in for qemu-system-x86_64 in the tests of a
// guest's hostile output (kernel_test.go): it boots nothing, and writes
// to the console and the result port what XDPMICRO_FAKE_GUEST says, as a
// guest could. It takes both the serial ports of files (-serial
// file:PATH) and of fd sets (-add-fd, /dev/fdset/N).
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) > 1 && os.Args[len(os.Args)-1] == "-version" {
		return // the check for -sandbox
	}
	console, port := serialPorts(os.Args[1:])
	fmt.Fprintln(console, "xdpmicro-guest: up")
	size, _ := strconv.ParseInt(os.Getenv("XDPMICRO_FAKE_SIZE"), 10, 64)
	switch os.Getenv("XDPMICRO_FAKE_GUEST") {
	case "stdout": // a result whose command wrote XDPMICRO_FAKE_STDOUT, exit 0
		send(port, []byte(os.Getenv("XDPMICRO_FAKE_STDOUT")))
	case "bomb": // a result line that decompresses to size bytes
		bomb(port, size)
	case "console": // a console line of size bytes, then no result
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for n := int64(0); n < size; n += int64(len(chunk)) {
			console.Write(chunk)
		}
		console.Write([]byte("\n"))
	}
}

// serialPorts opens the two serial ports the command line names.
func serialPorts(args []string) (console, port io.Writer) {
	fdOfSet := map[string]int{}
	chardev := map[string]string{}
	var ports []io.Writer
	open := func(path string) io.Writer {
		if set, ok := strings.CutPrefix(path, "/dev/fdset/"); ok {
			return os.NewFile(uintptr(fdOfSet[set]), path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeqemu:", err)
			os.Exit(1)
		}
		return f
	}
	for i := 0; i+1 < len(args); i++ {
		opts := map[string]string{}
		for _, kv := range strings.Split(args[i+1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			opts[k] = v
		}
		switch args[i] {
		case "-add-fd":
			fdOfSet[opts["set"]], _ = strconv.Atoi(opts["fd"])
		case "-chardev":
			chardev[opts["id"]] = opts["path"]
		case "-serial":
			if path, ok := strings.CutPrefix(args[i+1], "file:"); ok {
				ports = append(ports, open(path))
			} else if id, ok := strings.CutPrefix(args[i+1], "chardev:"); ok {
				ports = append(ports, open(chardev[id]))
			}
		}
	}
	if len(ports) != 2 {
		fmt.Fprintln(os.Stderr, "fakeqemu: want two serial ports")
		os.Exit(1)
	}
	return ports[0], ports[1]
}

// send writes the result line of a command that wrote stdout, exit 0.
func send(port io.Writer, stdout []byte) {
	data, _ := json.Marshal(map[string]any{"release": "6.1.0-fake", "exit": 0, "stdout": stdout})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	fmt.Fprintf(port, "xdpmicro-guest-result %s\n", base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// bomb writes a result line whose JSON, a stdout of size bytes of
// base64 zeros, is gzipped as it is written: a small line, a large
// result.
func bomb(port io.Writer, size int64) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write([]byte(`{"release":"6.1.0-fake","exit":0,"stdout":"`))
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	for n := int64(0); n < size; n += int64(len(chunk)) {
		zw.Write(chunk)
	}
	zw.Write([]byte(`"}`))
	zw.Close()
	fmt.Fprintf(port, "xdpmicro-guest-result %s\n", base64.StdEncoding.EncodeToString(buf.Bytes()))
}
