// Package socklock holds machine-wide locks as abstract unix sockets: a
// lock is the name @NAME, bound and listening, held by whichever process
// bound it. It needs no file, so there is nothing another user could plant
// a symlink or a file at for a root process to follow, truncate or chmod;
// the kernel frees the name when the socket closes, with the process that
// held it however that ends; any user may take one, so root's runs and a
// capable user's keep each other out; and a process that finds a lock
// held learns the holder's pid from the kernel (SO_PEERCRED), not from
// anything the holder wrote.
//
// Abstract names belong to a network namespace: processes in different
// ones do not see each other's locks.
package socklock
