// Package runfixture holds the made-up runs that the tests of report
// and internal/htmlpage render: one copy, so that the table and the page
// are tested on the same runs.
package runfixture
