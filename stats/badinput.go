package stats

import "errors"

// BadInput says whether err is an option the user gave being wrong (a
// confidence level, a low quantile, resamples, comparison options, an
// estimator's name), as opposed to samples that cannot be analysed.
func BadInput(err error) bool {
	for _, kind := range []error{ErrConfidence, ErrLowQuantile, ErrResamples, ErrCompare, ErrEstimator} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}
