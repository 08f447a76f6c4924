package kernels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// ErrNotKernel is returned for a file that is no x86 kernel image.
var ErrNotKernel = badinput.New("not a kernel image")

// Image is a kernel image QEMU can boot with -kernel.
type Image struct {
	Path string
	// Version is the version string the image carries, e.g.
	// "6.1.0-56-amd64 (debian-kernel@lists.debian.org) ... #1 SMP ...".
	Version string
}

// CheckImage checks, as every input is read, that path is an x86 bzImage
// (a vmlinuz): the boot sector's 0xAA55 and the boot protocol's "HdrS"
// magic, protocol 2.00 or later. It reads its version string too.
func CheckImage(path string) (Image, error) {
	f, err := safefs.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Image{}, bad(fmt.Errorf("--kernel %s: no such file", path))
	}
	if err != nil {
		return Image{}, bad(fmt.Errorf("--kernel %s: %w", path, errors.Unwrap(err)))
	}
	defer f.Close()
	var hdr [0x210]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return Image{}, fmt.Errorf("--kernel %s: %w (too short for one)", path, ErrNotKernel)
	}
	if binary.LittleEndian.Uint16(hdr[0x1fe:]) != 0xaa55 || string(hdr[0x202:0x206]) != "HdrS" {
		return Image{}, fmt.Errorf("--kernel %s: %w: no x86 boot header (a bzImage, vmlinuz-*, is wanted; vmlinux is not one)", path, ErrNotKernel)
	}
	if v := binary.LittleEndian.Uint16(hdr[0x206:]); v < 0x200 {
		return Image{}, fmt.Errorf("--kernel %s: %w: boot protocol %d.%02d is too old", path, ErrNotKernel, v>>8, v&0xff)
	}
	// kernel_version: an offset from 0x200 to a NUL-terminated string.
	img := Image{Path: path}
	if off := int64(binary.LittleEndian.Uint16(hdr[0x20e:])) + 0x200; off > 0x200 {
		buf := make([]byte, 256)
		n, _ := f.ReadAt(buf, off)
		if i := indexByte(buf[:n], 0); i > 0 {
			img.Version = string(buf[:i])
		}
	}
	return img, nil
}

// Release is the version string's first word, as uname -r gives it.
func (img Image) Release() string {
	for i, c := range img.Version {
		if c == ' ' {
			return img.Version[:i]
		}
	}
	return img.Version
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
