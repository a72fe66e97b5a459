package offsite

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// TestObjectLockBucket: in a real SeaweedFS bucket made with Object Lock and a default
// COMPLIANCE retention (docs/architecture.md#sealed-bucket), the uploader's puts (with their
// SHA-256 checksum, which a locked bucket requires) land under retention, a restore reads them
// back, and not even the writer's identity may delete a sealed file's version.
func TestObjectLockBucket(t *testing.T) {
	srv := seaweedfs.Start(t)
	ctx := context.Background()
	admin := srv.Client(seaweedfs.Writer)
	if _, err := admin.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("locked"), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	_, err := admin.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: aws.String("locked"),
		ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeCompliance, Days: aws.Int32(1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Setenv(t, seaweedfs.Writer)
	loc, _ := objectstore.ParseLocation("s3://locked/node-1")
	bucket, err := s3store.Open(ctx, loc, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := node(t)
	u := &Uploader{Store: bucket, DataDir: data}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	take(t, u, time.Now(), "index", "frontier", "a-1.warc.gz")
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, bucket, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	key := aws.String("node-1/sealed/a-1.warc.gz")
	h, err := admin.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("locked"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if h.ObjectLockMode != types.ObjectLockModeCompliance || h.ObjectLockRetainUntilDate == nil || !h.ObjectLockRetainUntilDate.After(time.Now()) {
		t.Fatalf("the sealed file is not under retention: mode %q until %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate)
	}
	_, err = admin.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("locked"), Key: key, VersionId: h.VersionId})
	if seaweedfs.Status(err) != http.StatusForbidden {
		t.Errorf("deleting the sealed file's version under retention: %v, want 403", err)
	}
}
