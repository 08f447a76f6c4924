package xdpmicro_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/host"
)

// TestMain leaves out the examples where BPF cannot be loaded: they load
// and run programs, and an example cannot skip. The tests skip on their
// own, with the reason.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := host.CheckPrivileges(); err != nil && flag.Lookup("test.run").Value.String() == "" {
		fmt.Printf("xdpmicro: the examples are not run: %v\n", err)
		_ = flag.Set("test.run", "^Test")
	}
	os.Exit(m.Run())
}
