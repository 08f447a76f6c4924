package kerneltest

import (
	"errors"
	"os"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// Exclusive holds the kernel tests' lock for this process, once however
// often it is called, and needs no file to do so.
func TestExclusive(t *testing.T) {
	Exclusive(t)
	Exclusive(t)
	if pid := socklock.Holder(lockName); pid != os.Getpid() {
		t.Errorf("the kernel tests' lock is held by pid %d, want this process, %d", pid, os.Getpid())
	}
	if _, err := socklock.Try(lockName); !errors.Is(err, socklock.ErrHeld) {
		t.Errorf("the lock can be taken again: %v", err)
	}
}
