package robots

import "time"

// delayRule is a valid crawl-delay line.
type delayRule struct {
	group int32
	delay time.Duration
}

// addDelay files a valid crawl-delay line of a group (docs/rules.md#d19).
func addDelay(p *Policy, group int32, r Record) {
	if d, ok := parseDelay(r.Value); ok {
		p.delays = append(p.delays, delayRule{group: group, delay: d})
	}
}

// parseDelay reads a Crawl-delay value: non-negative decimal seconds (docs/rules.md#d19).
func parseDelay(v string) (time.Duration, bool) {
	digits, dot := 0, -1
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && dot < 0:
			dot = i
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	const maxDelay = time.Duration(1<<63 - 1)
	var d time.Duration
	scale := time.Second
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '.' {
			continue
		}
		n := time.Duration(c - '0')
		if dot < 0 || i < dot {
			if d > (maxDelay-n*time.Second)/10 {
				return maxDelay, true
			}
			d = d*10 + n*time.Second
		} else {
			scale /= 10
			d += n * scale
		}
	}
	return d, true
}
