package public

import (
	"testing"
	"time"
)

func TestLayout(t *testing.T) {
	t.Parallel()
	pass := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	names := []struct {
		prefix string
		serial int
		want   string
	}{
		{ShardPrefix, 1, "PUBLIC-20261129200000-00001.warc.gz"},
		{TombstonePrefix, 123456, "TOMBSTONES-20261129200000-123456.warc.gz"},
	}
	for _, tc := range names {
		got := WARCName(tc.prefix, pass, tc.serial)
		if got != tc.want {
			t.Errorf("WARCName(%s, %d) = %q, want %q", tc.prefix, tc.serial, got, tc.want)
		}
		if n, ok := Serial(got, tc.prefix); !ok || n != tc.serial {
			t.Errorf("Serial(%q) = %d, %v", got, n, ok)
		}
	}
	if got := CDXJName("shards/PUBLIC-20261129200000-00001.warc.gz"); got != "shards/PUBLIC-20261129200000-00001.cdxj" {
		t.Errorf("CDXJName = %q", got)
	}
}

func TestSerialRejects(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"PUBLIC-20261129200000-00001.cdxj",
		"TOMBSTONES-20261129200000-00001.warc.gz",
		"PUBLICX-20261129200000-00001.warc.gz",
		"PUBLIC-20261129200000-x.warc.gz",
		"PUBLIC-20261129200000-00001.warc.gz.tmp",
	} {
		if n, ok := Serial(name, ShardPrefix); ok {
			t.Errorf("Serial(%q) = %d, want not a shard", name, n)
		}
	}
}

func TestPathOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"PUBLIC-20261129200000-00001.warc.gz":                "shards/PUBLIC-20261129200000-00001.warc.gz",
		"TOMBSTONES-20261129200000-00001.warc.gz":            "tombstones/TOMBSTONES-20261129200000-00001.warc.gz",
		"shards/PUBLIC-20261129200000-00001.warc.gz":         "shards/PUBLIC-20261129200000-00001.warc.gz",
		"tombstones/TOMBSTONES-20261129200000-00001.warc.gz": "tombstones/TOMBSTONES-20261129200000-00001.warc.gz",
		"../etc/passwd":   "../etc/passwd",
		"other.warc.gz":   "other.warc.gz",
		"PUBLICX.warc.gz": "PUBLICX.warc.gz",
		"":                "",
	} {
		if got := PathOf(in); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", in, got, want)
		}
	}
}
