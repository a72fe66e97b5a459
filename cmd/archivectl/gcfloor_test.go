package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},         // nothing measured yet
		{4 << 20, 1500},  // a lookup's few MiB: grow to 64 MiB
		{5 << 20, 1180},  // rounded to tens
		{32 << 20, 100},  // half the floor or more: the default
		{500 << 20, 100}, // a release pass's heap
		{1 << 10, 10000}, // bounded
		{30 << 20, 110},  // just below half
	} {
		if got := gcPercentFor(tc.live, gcFloorBytes); got != tc.want {
			t.Errorf("gcPercentFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}
