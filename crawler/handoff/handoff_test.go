package handoff_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/handoff"
	"github.com/archivectl/archivectl/objectstore"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	in := []handoff.Entry{
		{URL: "http://a.example/img.png?x=1&y=<2>", Kind: handoff.KindRequisite, Depth: 2, Hops: 1, RequisiteOf: "http://p.example/", RequisiteOfID: "<urn:uuid:1>",
			RequisiteOfReleaseAt: time.Date(2027, 3, 1, 12, 0, 0, 5, time.UTC), From: "crawl-0"},
		{URL: "https://b.example/page", Kind: handoff.KindPage, Depth: 3, From: "crawl-0"},
	}
	out, err := handoff.Decode(handoff.Encode(in))
	if err != nil || len(out) != len(in) || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("Decode(Encode) = %+v, %v", out, err)
	}
	if got := handoff.Name(2, "crawl-0", 7); got != "handoff/2/crawl-0-00000000000000000007.jsonl" {
		t.Errorf("Name = %q", got)
	}
}

func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, batch, want string }{
		{"not JSON", "url=http://a/\n", "line 1"},
		{"unknown field", `{"url":"http://a/","kind":"page","from":"n","body":"x"}`, "unknown field"},
		{"not http", `{"url":"file:///etc/passwd","kind":"page","from":"n"}`, "not an http(s) URL"},
		{"unknown kind", `{"url":"http://a/","kind":"robots","from":"n"}`, `kind "robots"`},
		{"requisite without its page's release time", `{"url":"http://a/","kind":"requisite","requisite_of":"http://p/","from":"n"}`, "requisite_of_release_at"},
		{"embedded page without its page's release time", `{"url":"http://a/i.png","kind":"page","requisite_of":"http://p/","from":"n"}`, "requisite_of_release_at"},
		{"negative depth", `{"url":"http://a/","kind":"page","depth":-1,"from":"n"}`, "negative"},
		{"second line bad", "{\"url\":\"http://a/\",\"kind\":\"page\",\"from\":\"n\"}\n{\n", "line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := handoff.Decode([]byte(tc.batch))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestPutAndRead: a put repeated with the same bytes is one object; other bytes under the
// name are refused; a batch that cannot be decoded reads as ErrBad; List keeps one partition's.
func TestPutAndRead(t *testing.T) {
	t.Parallel()
	s := objectstore.NewDir(t.TempDir())
	ctx := t.Context()
	b := handoff.Encode([]handoff.Entry{{URL: "http://a/", Kind: handoff.KindPage, From: "n"}})
	name := handoff.Name(1, "n", 1)
	for range 2 {
		if err := handoff.Put(ctx, s, name, b); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	if err := handoff.Put(ctx, s, name, append(b, '\n')); !errors.Is(err, objectstore.ErrExists) {
		t.Fatalf("Put of other bytes under the name: %v, want ErrExists", err)
	}
	bad := handoff.Name(1, "n", 2)
	if err := handoff.Put(ctx, s, bad, []byte("garbage\n")); err != nil {
		t.Fatal(err)
	}
	if err := handoff.Put(ctx, s, handoff.Name(11, "n", 1), b); err != nil {
		t.Fatal(err)
	}
	objs, err := handoff.List(ctx, s, 1)
	if err != nil || len(objs) != 2 || objs[0].Name != name || objs[1].Name != bad {
		t.Fatalf("List(1) = %v, %v", objs, err)
	}
	if es, err := handoff.Read(ctx, s, objs[0]); err != nil || len(es) != 1 || es[0].URL != "http://a/" {
		t.Errorf("Read = %v, %v", es, err)
	}
	if _, err := handoff.Read(ctx, s, objs[1]); !errors.Is(err, handoff.ErrBad) {
		t.Errorf("Read of garbage = %v, want ErrBad", err)
	}
	if _, err := handoff.Read(ctx, s, objectstore.Object{Name: bad, Size: handoff.MaxObject + 1}); !errors.Is(err, handoff.ErrBad) {
		t.Errorf("Read of a huge object = %v, want ErrBad", err)
	}
}
