package safefs

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// ErrUnsafe is returned for a path another user could have redirected.
var ErrUnsafe = badinput.New("refused")

// ErrNotRegular is returned for an input that is not a regular file.
var ErrNotRegular = badinput.New("not a regular file")

// ErrTooLarge is returned for an input larger than a reader takes.
var ErrTooLarge = badinput.New("too large")

// maxSymlinks bounds the symlinks one path may pass, as the kernel's 40.
const maxSymlinks = 40

// node is a path resolved: its last component opened O_PATH (fd), with
// the directory that holds it (parent, -1 when the path names the
// starting directory itself) and its name there. In walkWrite, fd is -1
// for a last component that does not exist.
type node struct {
	parent, fd int
	name       string
	st         unix.Stat_t
}

func (n *node) close() {
	if n.parent >= 0 {
		unix.Close(n.parent)
	}
	if n.fd >= 0 {
		unix.Close(n.fd)
	}
}

// walkMode is what resolve makes of the path's last component.
type walkMode int

const (
	// walkRead: every component must exist.
	walkRead walkMode = iota
	// walkMkdir: missing components are made directories (0755).
	walkMkdir
	// walkWrite: the last component may be missing, or a symlink another
	// user owns, which is returned as it is, to be replaced.
	walkWrite
	// walkDir: every component must exist, and the path is a directory
	// to write in.
	walkDir
)

// writes says whether a walk is for writing, where root follows fewer
// symlinks (followable).
func (m walkMode) writes() bool { return m != walkRead }

// trusted says whether a symlink owned by uid may be followed: root's,
// this process's user's, and, for a process sudo started as root, the
// user it was started for, who typed the path.
func trusted(uid uint32) bool {
	if uid == 0 || int64(uid) == int64(os.Geteuid()) {
		return true
	}
	sudo, ok := sudoUser()
	return ok && sudo.uid == uid
}

// owner is a file's user and group; a group of -1 leaves the group as
// it is.
type owner struct {
	uid uint32
	gid int
}

// sudoUser is the user sudo started this root process for, from
// SUDO_UID and SUDO_GID; ok is false when not root, not under sudo, or
// sudo's user is root.
func sudoUser() (u owner, ok bool) {
	if os.Geteuid() != 0 {
		return u, false
	}
	uid, err := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32)
	if err != nil || uid == 0 {
		return u, false
	}
	u = owner{uid: uint32(uid), gid: -1}
	if gid, err := strconv.ParseUint(os.Getenv("SUDO_GID"), 10, 32); err == nil {
		u.gid = int(gid)
	}
	return u, true
}

// inheritedOwner is who a file or directory that root makes in dir
// should belong to: the sudo user, where dir is theirs (their home,
// their working directory, a cache or baseline directory there), so that
// a run under sudo leaves nothing of root's where they must later write;
// ok is false where root's own ownership stands.
func inheritedOwner(dir int) (u owner, ok bool) {
	sudo, ok := sudoUser()
	if !ok {
		return u, false
	}
	var st unix.Stat_t
	if unix.Fstat(dir, &st) != nil || st.Uid != sudo.uid {
		return u, false
	}
	return sudo, true
}

// components splits a path into its names, without empty ones and ".".
func components(path string) []string {
	var out []string
	for _, c := range strings.Split(path, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// openStart opens the directory a path starts from: / or the working
// directory.
func openStart(absolute bool) (int, error) {
	start := "."
	if absolute {
		start = "/"
	}
	return unix.Open(start, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// resolve walks path one component at a time, each opened relative to
// the directory before it without following symlinks, and follows a
// symlink itself only when its owner is trusted; mode says what becomes
// of the last component. Errors are os.PathError of op and path, so they
// read as the os package's.
func resolve(op, path string, mode walkMode) (*node, error) {
	fail := func(err error) error { return &os.PathError{Op: op, Path: path, Err: err} }
	absolute := strings.HasPrefix(path, "/")
	dir, err := openStart(absolute)
	if err != nil {
		return nil, fail(err)
	}
	w := &walker{dir: dir, walked: ".", comps: components(path), mode: mode}
	if absolute {
		w.walked = "/"
	}
	for len(w.comps) > 0 {
		n, err := w.step()
		if err != nil {
			return nil, fail(err)
		}
		if n != nil {
			return n, nil
		}
	}
	// The path names the directory reached: /, ., or one ending in "..".
	n, err := dirNode(w.dir)
	if err != nil {
		return nil, fail(err)
	}
	return n, nil
}

// walker is resolve's walk: the directory reached, open, and the
// components still to walk from it.
type walker struct {
	dir    int
	walked string // the path as followed so far, for messages
	comps  []string
	links  int // symlinks followed
	mode   walkMode
}

// step walks the next component. It gives the node where the walk ends
// there, nil where it goes on; on an error, nothing it opened is left
// open.
func (w *walker) step() (*node, error) {
	c := w.comps[0]
	w.comps = w.comps[1:]
	if c == ".." {
		var err error
		if w.dir, err = parent(w.dir); err != nil {
			return nil, err
		}
		w.walked = join(w.walked, c)
		return nil, nil
	}
	last := len(w.comps) == 0
	fd, missing, err := openComponent(w.dir, c, last, w.mode)
	if missing {
		return &node{parent: w.dir, fd: -1, name: c}, nil
	}
	if err != nil {
		unix.Close(w.dir)
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		unix.Close(w.dir)
		return nil, err
	}
	here := join(w.walked, c)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return w.symlink(fd, st, c, here, last)
	case unix.S_IFDIR:
		if !last {
			unix.Close(w.dir)
			w.dir, w.walked = fd, here
			return nil, nil
		}
	default:
		if !last {
			unix.Close(fd)
			unix.Close(w.dir)
			return nil, unix.ENOTDIR
		}
	}
	return &node{parent: w.dir, fd: fd, name: c, st: st}, nil
}

// symlink is the walk at the symlink fd, c in the directory reached: as a
// write's last component, refused as root and kept as the node where its
// owner is not trusted (the write replaces the link, not what it names);
// otherwise followed if followable, its target's components walked next.
func (w *walker) symlink(fd int, st unix.Stat_t, c, here string, last bool) (*node, error) {
	if last && w.mode == walkWrite && os.Geteuid() == 0 {
		// Whoever owns it: under sudo, a checkout's out.json ->
		// /etc/passwd made root replace what it named.
		unix.Close(fd)
		unix.Close(w.dir)
		return nil, fmt.Errorf("%w: %s is a symlink: as root, xdpmicro writes no file through one, whoever owns it: name the file itself", ErrUnsafe, here)
	}
	if last && w.mode == walkWrite && !trusted(st.Uid) {
		return &node{parent: w.dir, fd: fd, name: c, st: st}, nil
	}
	target, err := followable(fd, st.Uid, here, w.links, w.mode.writes(), w.dir)
	if err != nil {
		unix.Close(w.dir)
		return nil, err
	}
	w.links++
	if strings.HasPrefix(target, "/") {
		unix.Close(w.dir)
		if w.dir, err = openStart(true); err != nil {
			return nil, err
		}
		w.walked = "/"
	}
	w.comps = append(components(target), w.comps...)
	return nil, nil
}

// parent opens dir's parent and closes dir.
func parent(dir int) (int, error) {
	up, err := unix.Openat(dir, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	unix.Close(dir)
	return up, err
}

// dirNode is the node of the directory dir itself, or closes it.
func dirNode(dir int) (*node, error) {
	n := &node{parent: -1, fd: dir}
	if err := unix.Fstat(dir, &n.st); err != nil {
		unix.Close(dir)
		return nil, err
	}
	return n, nil
}

// openComponent opens c in dir without following it. missing says that c
// is a write's last component and does not exist yet: the write makes it.
// With walkMkdir a missing directory is made.
func openComponent(dir int, c string, last bool, mode walkMode) (fd int, missing bool, err error) {
	fd, err = unix.Openat(dir, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) && last && mode == walkWrite {
		return -1, true, nil
	}
	if errors.Is(err, unix.ENOENT) && mode == walkMkdir {
		err = unix.Mkdirat(dir, c, 0o755)
		if err == nil {
			if u, ok := inheritedOwner(dir); ok {
				err = unix.Fchownat(dir, c, int(u.uid), u.gid, unix.AT_SYMLINK_NOFOLLOW)
			}
		}
		if err == nil || errors.Is(err, unix.EEXIST) {
			fd, err = unix.Openat(dir, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
	}
	return fd, false, err
}

// followable reads the symlink fd (and closes it), which uid owns and
// here names in the directory holder, the links-th followed so far, and
// returns its target if it may be followed: a link another user owns
// could have been planted. On a path root writes to, root follows only
// its own, in a directory no one else can change (rootsOnly): the sudo
// user's could name any of root's files.
func followable(fd int, uid uint32, here string, links int, write bool, holder int) (string, error) {
	target, err := readlink(fd)
	unix.Close(fd)
	switch {
	case err != nil:
	case !trusted(uid):
		err = fmt.Errorf("%w: %s is a symlink that uid %d owns, who could have planted it: xdpmicro follows only root's, yours and your sudo user's", ErrUnsafe, here, uid)
	case write && os.Geteuid() == 0:
		if why := rootsOnly(uid, holder); why != "" {
			err = fmt.Errorf("%w: %s is a symlink %s: as root, xdpmicro writes through root's symlinks alone, in directories only root can change: name the directory it points to, %q", ErrUnsafe, here, why, target)
		}
	}
	switch {
	case err != nil:
	case links >= maxSymlinks:
		err = unix.ELOOP
	case !strings.HasPrefix(target, "/") && strings.Contains(target, ":["):
		// /proc's link to a pipe, socket or anonymous inode
		// (/dev/stdout into a pipe): no file has that name.
		err = ErrNotRegular
	}
	return target, err
}

// rootsOnly says why root may not write through a symlink that uid owns
// in the directory holder, "" where it may: root's own, in a directory of
// root's that no one else can write, or sticky (/tmp), where no one else
// can remove or replace root's link. Another user could replace a link
// of root's in a directory they can write with one of their own that
// root had made (a root-owned link is not theirs to make). Directories
// that are not symlinks are not held to this: root makes its files in
// them new (O_EXCL) and renames them there, through the directory it
// holds open, so whoever can write one could have written the file.
func rootsOnly(uid uint32, holder int) string {
	if uid != 0 {
		return fmt.Sprintf("that uid %d owns", uid)
	}
	var st unix.Stat_t
	if err := unix.Fstat(holder, &st); err != nil {
		return "in a directory that cannot be read: " + err.Error()
	}
	if st.Uid != 0 || st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
		return fmt.Sprintf("in a directory that others can change (uid %d's, mode %#o)", st.Uid, st.Mode&0o7777)
	}
	return ""
}

func join(dir, name string) string {
	switch dir {
	case ".":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}

// readlink reads the target of the symlink fd is open on (O_PATH).
func readlink(fd int) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// Open opens the regular file at path for reading. A symlink another
// user owns is refused (ErrUnsafe), and so is anything but a regular
// file (ErrNotRegular) before it is opened: a FIFO's open would block,
// a device's can act.
func Open(path string) (*os.File, error) {
	n, err := resolve("open", path, walkRead)
	if err != nil {
		return nil, err
	}
	defer n.close()
	if n.st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	fd, err := unix.Openat(n.parent, n.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// What was opened must be what was checked, not a file swapped in.
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != n.st.Dev || st.Ino != n.st.Ino {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it changed while opened", ErrUnsafe)}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadFile reads the regular file at path, as Open opens it, refusing
// one larger than limit bytes (a sparse file can claim terabytes).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && fi.Size() > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrTooLarge, fi.Size(), limit)}
	}
	data, err := readAll(f, fi, limit)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
	}
	return data, nil
}

// readAll reads f, of fi's size where known, to its end or past limit:
// into a buffer of that size and one byte more, to see it end, where
// io.ReadAll grows its own as it goes, which took 1.6 times a file of
// 200 MB and left as much again in the copies before it.
func readAll(f *os.File, fi os.FileInfo, limit int64) ([]byte, error) {
	if fi == nil || fi.Size() <= 0 { // /proc's files say 0
		return io.ReadAll(io.LimitReader(f, limit+1))
	}
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	// It grew since: the rest, as far as the limit.
	rest, err := io.ReadAll(io.LimitReader(f, limit+1-int64(n)))
	return append(buf, rest...), err
}

// MaxInput is the largest input file xdpmicro reads whole: objects,
// packet files, --map-init files, saved results.
const MaxInput = 256 << 20

// Dir is a directory opened to write files into.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens the directory at path to write files into, as resolve
// walks it; with mkdir, it and its missing parents are created (0755).
func OpenDir(path string, mkdir bool) (*Dir, error) {
	mode := walkDir
	if mkdir {
		mode = walkMkdir
	}
	n, err := resolve("open", path, mode)
	if err != nil {
		return nil, err
	}
	if n.parent >= 0 {
		unix.Close(n.parent)
	}
	if n.st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(n.fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: unix.ENOTDIR}
	}
	return &Dir{fd: n.fd, path: path}, nil
}

// Close closes the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// create makes a new file of a random name beginning prefix, 0644 less
// the umask; O_EXCL: never one that exists, nor through a symlink.
func (d *Dir) create(prefix string) (*os.File, string, error) {
	for range 100 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", &os.PathError{Op: "create", Path: join(d.path, name), Err: err}
		}
		return os.NewFile(uintptr(fd), join(d.path, name)), name, nil
	}
	return nil, "", &os.PathError{Op: "create", Path: join(d.path, prefix+"*"), Err: unix.EEXIST}
}

// WriteFile writes data as the file name in the directory, atomically:
// a new file, written and synced, then renamed over name, so that name
// holds the old content or the whole new one, never a part. Whatever was
// at name (another user's file, a symlink) is replaced, never written
// through.
func (d *Dir) WriteFile(name string, data []byte) error {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return &os.PathError{Op: "write", Path: join(d.path, name), Err: unix.EINVAL}
	}
	f, tmp, err := d.create("." + name + ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = d.ownLike(f, name)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(d.fd, tmp, d.fd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return &os.PathError{Op: "write", Path: join(d.path, name), Err: err}
	}
	return nil
}

// ownLike gives f, about to replace name, the owner a root process
// should leave there. A regular file of root's or the sudo user's that it
// replaces keeps its owner, group and permissions (a 0600 file does not
// become 0644, nor the user's output root's); a new file in the sudo
// user's directory is theirs. Anyone else's file or symlink at name lends
// nothing: what root writes over a file planted in /tmp stays root's, so
// that its planter cannot change it after.
func (d *Dir) ownLike(f *os.File, name string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	sudo, underSudo := sudoUser()
	var old unix.Stat_t
	err := unix.Fstatat(d.fd, name, &old, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil && old.Mode&unix.S_IFMT == unix.S_IFREG && (old.Uid == 0 || underSudo && old.Uid == sudo.uid) {
		if err := f.Chown(int(old.Uid), int(old.Gid)); err != nil {
			return err
		}
		return f.Chmod(os.FileMode(old.Mode & 0o777))
	}
	if err == nil {
		return nil
	}
	if u, ok := inheritedOwner(d.fd); ok {
		return f.Chown(int(u.uid), u.gid)
	}
	return nil
}

// CheckWritable creates a file in the directory and removes it: the only
// test of writing that permissions, read-only mounts and ACLs all answer.
func (d *Dir) CheckWritable() error {
	f, name, err := d.create(".xdpmicro-check-")
	if err != nil {
		return err
	}
	f.Close()
	return unix.Unlinkat(d.fd, name, 0)
}

// WriteFile writes data as the file at path, atomically, as Dir's
// WriteFile does in the directory that holds it, which must exist. A
// symlink at path is followed if root, this user or the sudo user owns
// it (the file it names is replaced), else replaced itself. A path that
// names anything but a regular file (/dev/stdout, a FIFO, a directory)
// is refused (ErrNotRegular): renamed over, a device's name in /dev would
// be lost to every other program.
func WriteFile(path string, data []byte) error {
	d, name, err := target(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(name, data)
}

// CheckWrite checks, before anything is written, that WriteFile could
// write path: it resolves it as WriteFile does, and makes and removes a
// file beside it.
func CheckWrite(path string) error {
	d, _, err := target(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.CheckWritable()
}

// target resolves the file WriteFile writes: the directory to write it
// in, and its name there.
func target(path string) (*Dir, string, error) {
	n, err := resolve("open", path, walkWrite)
	if err != nil {
		return nil, "", err
	}
	if n.fd >= 0 {
		unix.Close(n.fd)
		n.fd = -1
	}
	switch n.st.Mode & unix.S_IFMT {
	case 0, unix.S_IFREG, unix.S_IFLNK: // none yet, a file, another user's symlink
		if n.parent >= 0 {
			dir, _ := splitPath(path)
			return &Dir{fd: n.parent, path: dir}, n.name, nil
		}
	}
	n.close()
	return nil, "", &os.PathError{Op: "write", Path: path, Err: ErrNotRegular}
}

// splitPath is filepath.Split without the trailing slash, "." for a
// name alone.
func splitPath(path string) (dir, name string) {
	i := strings.LastIndex(path, "/")
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}
