package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// testKnob is a knob in a file of the test's own, with a marker and a lock
// no real run uses.
func testKnob(t *testing.T, value string) rcuKnob {
	t.Helper()
	dir := t.TempDir()
	k := rcuKnob{knob: filepath.Join(dir, "rcu_expedited"), marker: filepath.Join(dir, "run", "marker"),
		lock: fmt.Sprintf("xdpmicro-test-rcu-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	if value != "" {
		if err := os.WriteFile(k.knob, []byte(value+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func knobValue(t *testing.T, k rcuKnob) string {
	t.Helper()
	b, err := os.ReadFile(k.knob)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The knob is set only where xdpmicro may put it back, and always put
// back where it was set: by this run, or by one killed in its window.
func TestExpediteRCU(t *testing.T) {
	for _, tc := range []struct {
		name                string
		value               string
		marked, otherHolds  bool
		during, after       string
		expedited, unmarked bool
	}{
		{name: "normal", value: "0", during: "1", after: "0", expedited: true, unmarked: true},
		{name: "the administrator's", value: "1", during: "1", after: "1", expedited: true, unmarked: true},
		{name: "left by a killed run", value: "1", marked: true, during: "1", after: "0", expedited: true, unmarked: true},
		{name: "another run's window", value: "1", marked: true, otherHolds: true, during: "1", after: "1", expedited: true},
		{name: "another run's, normal", value: "0", otherHolds: true, during: "0", after: "0", unmarked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKnob(t, tc.value)
			if tc.marked {
				if err := k.set(); err != nil { // as a killed run left it
					t.Fatal(err)
				}
			}
			if tc.otherHolds {
				other, err := socklock.Try(k.lock)
				if err != nil {
					t.Fatal(err)
				}
				defer other.Release()
			}
			end, expedited := k.expedite()
			if got := knobValue(t, k); got != tc.during || expedited != tc.expedited {
				t.Errorf("during: knob %s, expedited %v; want %s, %v", got, expedited, tc.during, tc.expedited)
			}
			end()
			if got := knobValue(t, k); got != tc.after {
				t.Errorf("after: knob %s, want %s", got, tc.after)
			}
			if k.marked() == tc.unmarked {
				t.Errorf("after: marker there %v, want %v", k.marked(), !tc.unmarked)
			}
			if l, err := socklock.Try(k.lock); err != nil && !tc.otherHolds {
				t.Errorf("the lock is still held after the end: %v", err)
			} else {
				l.Release()
			}
		})
	}
	// No knob (no such kernel, or no permission): nothing is set.
	k := testKnob(t, "")
	end, expedited := k.expedite()
	end()
	if expedited || k.marked() {
		t.Errorf("without a knob: expedited %v, marker left %v", expedited, k.marked())
	}
}
