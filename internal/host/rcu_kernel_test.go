package host_test

import (
	"os"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// On this machine's kernel: expedited while asked, and as it was after.
func TestExpediteRCUHere(t *testing.T) {
	const knob = "/sys/kernel/rcu_expedited"
	before, err := os.ReadFile(knob)
	if err != nil {
		t.Skipf("no RCU knob here: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("setting the RCU knob needs root")
	}
	// No other test process changes the dispatcher meanwhile.
	kerneltest.Exclusive(t)
	end, expedited := host.ExpediteRCU()
	during, _ := os.ReadFile(knob)
	end()
	after, _ := os.ReadFile(knob)
	if !expedited || strings.TrimSpace(string(during)) != "1" {
		t.Errorf("while expedited: knob %q, expedited %v", during, expedited)
	}
	if string(after) != string(before) {
		t.Errorf("the knob read %q before, %q after", before, after)
	}
}
