package eval

import "unicode/utf8"

// closest is the candidate Python 3.12 suggests for a misspelt name
// ("Did you mean"), or "": the one at the smallest edit distance under
// CPython's costs (2 per insertion, deletion or substitution, 1 where
// only the case differs), within (len(name)+len(cand)+3)*2/6.
func closest(name string, cands []string) string {
	const maxLen = 40
	if len(name) > maxLen || len(cands) > 750 {
		return ""
	}
	best, bestCost := "", -1
	seen := map[string]bool{}
	for _, c := range cands {
		if c == name || seen[c] || len(c) > maxLen {
			continue
		}
		seen[c] = true
		limit := (utf8.RuneCountInString(name) + utf8.RuneCountInString(c) + 3) * 2 / 6
		if bestCost >= 0 && bestCost < limit {
			limit = bestCost - 1
		}
		cost := editCost(name, c, limit)
		if cost <= limit && (bestCost < 0 || cost < bestCost) {
			best, bestCost = c, cost
		}
	}
	return best
}

// editCost is the weighted Levenshtein distance of a and b (more than
// limit when it exceeds it).
func editCost(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = 2 * j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = 2 * i
		low := cur[0]
		for j := 1; j <= len(rb); j++ {
			sub := 0
			if ra[i-1] != rb[j-1] {
				sub = 2
				if lower(ra[i-1]) == lower(rb[j-1]) {
					sub = 1
				}
			}
			cur[j] = min(prev[j-1]+sub, prev[j]+2, cur[j-1]+2)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func lower(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
