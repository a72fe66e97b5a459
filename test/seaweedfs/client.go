package seaweedfs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Client is an S3 client of the server acting as id, configured here and not from the
// environment: for a test's own set-up and checks, never for the code under test.
func (s *Server) Client(id Identity) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       Region,
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(id.Key, id.Secret, ""),
	})
}

// probeBucket is where waitReady stores its probe object.
const probeBucket = "archivectl-probe"

// probe creates the probe bucket (once) and stores an object in it.
func (s *Server) probe(ctx context.Context) error {
	c := s3.New(s.Client(Writer).Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 }) // waitReady retries
	if err := createBucket(ctx, c, probeBucket); err != nil {
		return err
	}
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(probeBucket), Key: aws.String("probe"), Body: strings.NewReader("ready")})
	return err
}

// CreateBucket makes a bucket as the writer; one that exists already is no error.
func (s *Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	if err := createBucket(context.Background(), s.Client(Writer), name); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
}

func createBucket(ctx context.Context, c *s3.Client, name string) error {
	_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if errors.As(err, &owned) || errors.As(err, &exists) {
		return nil
	}
	return err
}

// Status is the HTTP status of a failed S3 request (403 for an identity refused), 0 when there
// was no answer.
func Status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
