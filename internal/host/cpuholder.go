package host

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// Squatters. Any user can bind @xdpmicro-cpuN, so a lock may be held by
// something that is no run at all, forever (issue 59). A run waits as
// long as it takes only for a holder it can trust to be a run that ends:
// root's, or its own user's. Another user's process, or one it cannot
// name, it waits for at most squatWait, having said whose it is (but for
// a process of this very executable: a capable user's run of the copy
// root runs too); then the run goes on as the policy allows: on another CPU whose lock is free or
// comes free, else it fails (exit 1) naming the process. It never
// measures on a CPU whose lock another process holds.

// squatWait is how long a run waits for a CPU lock held by a process it
// cannot trust to end; a variable, for tests.
var squatWait = 10 * time.Second

// lockHolder is who holds a CPU lock, as far as this process can tell.
type lockHolder struct {
	known bool
	pid   int // 0 where not visible from this pid namespace
	uid   int
	comm  string // the process's name, "" where unknown
	// sameExe: the process runs this process's executable file, as
	// far as this process may look (root may).
	sameExe bool
}

// holderOf finds who holds the lock of name.
func holderOf(name string) lockHolder {
	p, ok := socklock.HolderOf(name)
	if !ok {
		return lockHolder{}
	}
	h := lockHolder{known: true, pid: p.Pid, uid: p.Uid}
	if p.Pid > 0 {
		proc := "/proc/" + strconv.Itoa(p.Pid)
		if comm, err := os.ReadFile(proc + "/comm"); err == nil {
			h.comm = printableComm(strings.TrimSuffix(string(comm), "\n"))
		}
		theirs, err1 := os.Stat(proc + "/exe")
		ours, err2 := os.Stat("/proc/self/exe")
		h.sameExe = err1 == nil && err2 == nil && os.SameFile(theirs, ours)
	}
	return h
}

// trusted says whether the holder is a process a run waits for without
// limit: root's, this user's, or one of this executable.
func (h lockHolder) trusted() bool {
	return h.known && (h.uid == 0 || h.uid == os.Geteuid() || h.sameExe)
}

// String names the holder for a message: its pid, name and user, as
// much of them as is known.
func (h lockHolder) String() string {
	if !h.known {
		return "a process this run cannot name (as root, ss -xlp names it)"
	}
	who := "a process not visible from this pid namespace"
	if h.pid > 0 {
		who = "pid " + strconv.Itoa(h.pid)
		if h.comm != "" {
			who += " (" + h.comm + ")"
		}
	}
	return who + " of " + userName(h.uid)
}

// userName is "user NAME (uid N)", or "uid N" where the name is unknown.
func userName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return "uid " + strconv.Itoa(uid)
	}
	return fmt.Sprintf("user %s (uid %d)", printableComm(u.Username), uid)
}

// printableComm keeps a process's or user's name, which its owner
// chose, from writing to the terminal: anything but a printable rune
// reads "?".
func printableComm(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}

// errSquatted ends a wait for a lock held past squatWait by a process
// not trusted to end.
var errSquatted = errors.New("held past the wait for another user's process")

// squatError is the waits for locks given up on after squatWait, when
// no other lock came free.
type squatError struct {
	locks  []*cpuLock
	waited time.Duration
}

func (e squatError) Error() string {
	var cpus, whose, pids []string
	for _, l := range e.locks {
		cpus = append(cpus, fmt.Sprintf("CPU %d's", l.cpu))
		whose = append(whose, l.who.String())
		if l.who.pid > 0 {
			pids = append(pids, strconv.Itoa(l.who.pid))
		}
	}
	kill := ""
	if len(pids) > 0 {
		kill = " (kill " + strings.Join(pids, " ") + ")"
	}
	if len(e.locks) == 1 {
		l := e.locks[0]
		return fmt.Sprintf("CPU %d's lock %s was held for %s by %s, neither root nor you, so maybe no xdpmicro run: "+
			"not waiting longer; end that process%s, or measure on another CPU (--cpu)",
			l.cpu, socklock.Address(l.name), roundWait(e.waited), whose[0], kill)
	}
	return fmt.Sprintf("%s locks were held for %s by %s, neither root nor you, so maybe no xdpmicro runs: "+
		"not waiting longer; end them%s, or measure on another CPU (--cpu)",
		strings.Join(cpus, " and "), roundWait(e.waited), strings.Join(whose, " and "), kill)
}
