// Package htmlpage writes a report (results.Report) as a static HTML page
// with its plots: a summary, each case's distribution, samples in the
// order taken, linear fits and comparisons. The command calls it for
// --report; the wide table the page embeds comes from package report.
// It needs no network and no JavaScript.
package htmlpage
