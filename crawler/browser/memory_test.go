package browser

import "testing"

func TestStatGroupRSS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stat string
		pgid       int
		rss        int64
		ok         bool
	}{
		{"chromium", "4121 (chromium) S 4100 4121 4100 0 -1 4194560 28 0 0 0 1 0 0 0 20 0 9 0 1 4096 2560 1844674 0 0", 4121, 2560, true},
		{"name with spaces and parentheses", "77 (a) (b c) R 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 4096 12 1844674", 70, 12, true},
		{"cut short", "77 (a) R 1 70", 0, 0, false},
		{"no name", "garbage", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, r, ok := statGroupRSS([]byte(tc.stat))
			if g != tc.pgid || r != tc.rss || ok != tc.ok {
				t.Errorf("statGroupRSS = %d, %d, %v; want %d, %d, %v", g, r, ok, tc.pgid, tc.rss, tc.ok)
			}
		})
	}
}

func TestRollupPss(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, rollup string
		pss          int64
		ok           bool
	}{
		{"rollup", "55f3f3719000-7ffe40f4a000 ---p 00000000 00:00 0  [rollup]\nRss:   1668 kB\nPss:    231 kB\nPss_Dirty: 108 kB\n", 231 << 10, true},
		{"no Pss", "Rss: 1668 kB\n", 0, false},
		{"another unit", "Pss: 1 MB\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if pss, ok := rollupPss([]byte(tc.rollup)); pss != tc.pss || ok != tc.ok {
				t.Errorf("rollupPss = %d, %v; want %d, %v", pss, ok, tc.pss, tc.ok)
			}
		})
	}
}
