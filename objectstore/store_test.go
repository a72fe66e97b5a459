package objectstore

import (
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Location
		errWord string
	}{
		{"", Location{Kind: Local}, ""},
		{"s3://archive", Location{Kind: S3, Bucket: "archive", raw: "s3://archive"}, ""},
		{"s3://archive/", Location{Kind: S3, Bucket: "archive", raw: "s3://archive"}, ""},
		{"s3://archive/public/v1/", Location{Kind: S3, Bucket: "archive", Prefix: "public/v1", raw: "s3://archive/public/v1"}, ""},
		{"s3://my.archive-2/p", Location{Kind: S3, Bucket: "my.archive-2", Prefix: "p", raw: "s3://my.archive-2/p"}, ""},
		{"file:///srv/public", Location{Kind: File, Dir: "/srv/public", raw: "file:///srv/public"}, ""},
		{"file:///srv/public/../x/", Location{Kind: File, Dir: "/srv/x", raw: "file:///srv/x"}, ""},
		{"s3://AB/p", Location{}, "not a bucket name"},
		{"s3://ab/p", Location{}, "not a bucket name"},
		{"s3://-ab-/p", Location{}, "not a bucket name"},
		{"s3://a..b/p", Location{}, "not a bucket name"},
		{"s3://key:secret@archive/p", Location{}, "credentials, region and endpoint come from the AWS environment"},
		{"s3://archive/p?region=eu-west-1", Location{}, "AWS environment"},
		{"s3://archive:9000/p", Location{}, "AWS environment"},
		{"s3://archive/a/../b", Location{}, "'..' segment"},
		{"s3://archive/a//b", Location{}, "empty"},
		{"file://host/srv", Location{}, "file:///ABSOLUTE/DIR"},
		{"file:relative", Location{}, "file:///ABSOLUTE/DIR"},
		{"/srv/public", Location{}, "give s3://BUCKET/PREFIX"},
		{"http://example.com/b", Location{}, "give s3://BUCKET/PREFIX"},
		{"s3://%zz", Location{}, "not a URL"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLocation(tc.in)
			if tc.errWord == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ParseLocation(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errWord) {
				t.Fatalf("ParseLocation(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.errWord)
			}
		})
	}
}
