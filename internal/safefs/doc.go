// Package safefs opens the files xdpmicro reads and writes, usually as
// root, so that no other user can redirect them: a symlink is followed
// only if root, this process's user or the user sudo ran it for owns it,
// since anyone else could have planted it (in /tmp, in their own
// directories); a file is read only if it is a regular file (not a FIFO
// that would block, not a device whose open does something); and a file
// is written as a new file beside its name, then renamed over it, so
// that no existing file is ever opened for writing, truncated or
// chmodded, and only over a regular file or another user's symlink,
// never over a device's name. Under sudo, what root makes in the sudo
// user's directories is given to them, and a file of theirs or root's
// that it replaces keeps its owner and mode: a run leaves nothing of
// root's where the user must write later. Paths are walked one component at a time,
// each opened relative to the last (openat with O_NOFOLLOW), so that
// nothing swapped in between a check and a use is ever followed.
package safefs
