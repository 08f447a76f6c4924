// Package htmlpage writes a report (results.Run) as a static HTML page
// with its plots: a summary, each case's distribution, samples in the
// order taken, linear fits and comparisons. The command calls it for
// --report; the wide table the page embeds comes from package report.
// It needs no network and no JavaScript. The curves' kernel densities
// (kde.go: Sheather and Jones's bandwidth, floored at the kernel's
// resolution) are the page's own: only the page draws densities, so they
// are not part of package stats.
package htmlpage
