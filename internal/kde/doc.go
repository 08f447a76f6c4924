// Package kde estimates kernel densities of samples for the HTML page's
// curves: a bandwidth (Sheather and Jones's, floored at the kernel's
// resolution) and the density at given points. Only the page draws
// densities, so this is not part of package stats.
package kde
