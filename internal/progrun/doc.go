// Package progrun is the raw BPF_PROG_TEST_RUN call: one system call, no
// retries, the kernel's figures as they come. Package measure samples
// through it; its anchors need a call that ends on the first signal.
package progrun
