package packets

import "strings"

// MatchEffects holds the effects a case's checking run made (got, as
// results print them) against the patterns the case expects (want): what
// of want no effect matches, and what of got no pattern matched, each
// effect matched once. A pattern's '*' stands for any text (a timestamp,
// a hash).
func MatchEffects(want, got []string) (missing, unexpected []string) {
	used := make([]bool, len(got))
	for _, w := range want {
		i := -1
		for j, g := range got {
			if !used[j] && wildcardMatch(w, g) {
				i = j
				break
			}
		}
		if i < 0 {
			missing = append(missing, w)
			continue
		}
		used[i] = true
	}
	for j, g := range got {
		if !used[j] {
			unexpected = append(unexpected, g)
		}
	}
	return missing, unexpected
}

// wildcardMatch says whether s matches pattern, whose every '*' stands
// for any text and every other character for itself.
func wildcardMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
