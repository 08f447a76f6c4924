package stats

import "slices"

// Outliers counts the samples outside Tukey's fences, classified as
// Criterion.rs does. Mild outliers lie between the inner (1.5 IQR) and
// outer (3 IQR) fences, severe ones beyond the outer fences; a sample
// exactly on a fence belongs to the less extreme side.
type Outliers struct {
	LowSevere  int `json:"low_severe"`
	LowMild    int `json:"low_mild"`
	HighMild   int `json:"high_mild"`
	HighSevere int `json:"high_severe"`
	// Fences are Q1-3IQR, Q1-1.5IQR, Q3+1.5IQR and Q3+3IQR: the low
	// severe, low mild, high mild and high severe fences, ascending.
	Fences [4]float64 `json:"fences"`
}

// Total returns the number of outliers of any kind.
func (o Outliers) Total() int {
	return o.LowSevere + o.LowMild + o.HighMild + o.HighSevere
}

// Tukey classifies samples by Tukey's fences, with quartiles from
// [Quantile]. Samples should be finite; it returns the zero Outliers for
// no samples.
func Tukey(samples []float64) Outliers {
	if len(samples) == 0 {
		return Outliers{}
	}
	return tukeySorted(slices.Sorted(slices.Values(samples)))
}

func tukeySorted(sorted []float64) Outliers {
	q1, q3 := Quantile(sorted, 0.25), Quantile(sorted, 0.75)
	iqr := q3 - q1
	o := Outliers{Fences: [4]float64{q1 - 3*iqr, q1 - 1.5*iqr, q3 + 1.5*iqr, q3 + 3*iqr}}
	for _, x := range sorted {
		switch {
		case x < o.Fences[0]:
			o.LowSevere++
		case x < o.Fences[1]:
			o.LowMild++
		case x > o.Fences[3]:
			o.HighSevere++
		case x > o.Fences[2]:
			o.HighMild++
		}
	}
	return o
}
