// Package s3store is the objectstore.Store in an S3 bucket, through the AWS SDK for Go v2:
// AWS itself or any S3-compatible server (SeaweedFS, Ceph RGW, MinIO).
//
// Credentials, region and endpoint come only from the standard AWS environment variables and
// files, resolved by the SDK as every AWS tool resolves them: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (or AWS_PROFILE and the shared credentials and config files, SSO, web
// identity, an instance role), AWS_REGION, AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3; with
// Options.Profile, the profile's endpoint and region instead of the environment's. With an
// endpoint set, requests use path-style addressing (most S3-compatible servers need it) and
// the region defaults to us-east-1. Nothing here logs or prints a credential.
//
// Put is a single PUT with If-None-Match: * (a conditional write: the server refuses it when
// the name is taken) and the object's SHA-256 in its metadata, so that a Put retried after a
// lost answer recognises its own object.
package s3store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"
)

// MaxPut is the largest object one PUT may hold in S3; larger files would need a multipart
// upload, which archivectl does not do: keep release.shard_size below it.
const MaxPut = 5 << 30

// maxIdle is how many idle connections to the endpoint are kept for reuse.
const maxIdle = 64

// shaKey is the user metadata key (x-amz-meta-sha256) holding an object's SHA-256.
const shaKey = "sha256"

// Store is a bucket, or the keys under a prefix of it.
type Store struct {
	c        *s3.Client
	bucket   string
	prefix   string // "" or ending in "/"
	endpoint string // for messages: the endpoint set in the environment, or "AWS"
}

// Options tune Open; the zero value is the default.
type Options struct {
	MaxAttempts int           // attempts per request, retries included (default 3)
	DialTimeout time.Duration // default 5s
	// Profile names the profile of the shared AWS files whose credentials, endpoint (endpoint_url,
	// none: AWS's) and region (when it has one) are used instead of the environment's: a store
	// with credentials of its own beside another (the sealed side beside the public one). ""
	// uses the environment's as every AWS tool does.
	Profile string
	// Endpoint is the S3 endpoint URL, over the profile's or else the environment's
	// (AWS_ENDPOINT_URL); "" keeps theirs.
	Endpoint string
}

// Open returns the Store for loc (an s3:// Location) with the AWS configuration of the
// environment. It sends no request: Check does.
func Open(ctx context.Context, loc objectstore.Location, opt Options) (*Store, error) {
	if loc.Kind != objectstore.S3 {
		return nil, fmt.Errorf("s3store: %s is not an s3:// location", loc)
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = 3
	}
	if opt.DialTimeout <= 0 {
		opt.DialTimeout = 5 * time.Second
	}
	hc := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = opt.DialTimeout }).
		WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = time.Minute
			// Kept-alive connections for a lookup's concurrent ranged GETs (the SDK keeps 10 a host).
			t.MaxIdleConns, t.MaxIdleConnsPerHost = maxIdle, maxIdle
		})
	load := []func(*config.LoadOptions) error{config.WithHTTPClient(hc), config.WithRetryMaxAttempts(opt.MaxAttempts),
		config.WithLogger(logging.Nop{}), config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired)}
	if opt.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(opt.Profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("%s: the AWS configuration (environment and shared files) does not load: %w", loc, err)
	}
	s := &Store{bucket: loc.Bucket, endpoint: "AWS"}
	if loc.Prefix != "" {
		s.prefix = loc.Prefix + "/"
	}
	s.c = s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opt.Profile != "" {
			// In the SDK the environment's endpoint and region override the profile's: a store
			// with a profile of its own (the sealed side, beside a public one set up by the
			// environment) takes its endpoint from the profile alone, and its region when it has one.
			sc := sharedConfig(cfg)
			o.BaseEndpoint = nil
			if sc.BaseEndpoint != "" {
				o.BaseEndpoint = aws.String(sc.BaseEndpoint)
			}
			if sc.Region != "" {
				o.Region = sc.Region
			}
		}
		if opt.Endpoint != "" {
			o.BaseEndpoint = aws.String(opt.Endpoint)
		}
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
			s.endpoint = *o.BaseEndpoint
			if o.Region == "" {
				o.Region = "us-east-1"
			}
		}
	})
	if s.c.Options().Region == "" {
		return nil, fmt.Errorf("%s: no AWS region: set AWS_REGION (or region in the shared config file)", loc)
	}
	return s, nil
}

// String is s3://BUCKET/PREFIX.
// sharedConfig is the profile of the shared AWS files that cfg was loaded with.
func sharedConfig(cfg aws.Config) config.SharedConfig {
	for _, src := range cfg.ConfigSources {
		if sc, ok := src.(config.SharedConfig); ok {
			return sc
		}
	}
	return config.SharedConfig{}
}

func (s *Store) String() string { return "s3://" + s.bucket + "/" + strings.TrimSuffix(s.prefix, "/") }

// Check lists one key of the store (a read-only identity may list): a missing bucket, refused
// credentials or an unreachable endpoint is one clear error.
func (s *Store) Check(ctx context.Context) error {
	_, err := s.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix), MaxKeys: aws.Int32(1)})
	return s.fail("reach", "", err)
}

// Put stores body under name with If-None-Match: *, unless name holds other bytes.
func (s *Store) Put(ctx context.Context, name string, body io.ReadSeeker, size int64, sum string) error {
	if size > MaxPut {
		return fmt.Errorf("%s: put %s: %d bytes is more than one PUT may hold (5 GiB): lower release.shard_size", s, name, size)
	}
	raw, err := hex.DecodeString(sum)
	if err != nil || len(raw) != sha256.Size {
		return fmt.Errorf("%s: put %s: %q is not a hex SHA-256", s, name, sum)
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: put %s: %w", s, name, err)
	}
	_, err = s.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           aws.String(s.prefix + name),
		Body:          body,
		ContentLength: aws.Int64(size),
		IfNoneMatch:   aws.String("*"),
		Metadata:      map[string]string{shaKey: sum},
		// The server checks the body against it: what is stored is what was hashed here.
		ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(raw)),
	})
	if err == nil {
		return nil
	}
	if code := status(err); code != http.StatusPreconditionFailed && code != http.StatusConflict {
		return s.fail("put", name, err)
	}
	// The name is taken: by this very object when an earlier attempt's answer was lost.
	h, herr := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)})
	if herr != nil {
		return s.fail("put", name, herr)
	}
	if aws.ToInt64(h.ContentLength) == size && h.Metadata[shaKey] == sum {
		return nil
	}
	return fmt.Errorf("%s: put %s: %w", s, name, objectstore.ErrExists)
}

// Read returns n bytes of name from off (n < 0: to the end) with one ranged GET.
func (s *Store) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)}
	switch {
	case n == 0:
		return io.NopCloser(strings.NewReader("")), nil
	case n > 0:
		in.Range = aws.String("bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+n-1, 10))
	case off > 0:
		in.Range = aws.String("bytes=" + strconv.FormatInt(off, 10) + "-")
	}
	out, err := s.c.GetObject(ctx, in)
	if err != nil {
		return nil, s.fail("read", name, err)
	}
	if n > 0 && aws.ToInt64(out.ContentLength) != n {
		out.Body.Close()
		return nil, fmt.Errorf("%s: read %s: asked %d bytes at %d, the store answered %d", s, name, n, off, aws.ToInt64(out.ContentLength))
	}
	return out.Body, nil
}

// Stat returns name's object (HeadObject).
func (s *Store) Stat(ctx context.Context, name string) (objectstore.Object, error) {
	h, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)})
	if err != nil {
		return objectstore.Object{}, s.fail("stat", name, err)
	}
	return objectstore.Object{Name: name, Size: aws.ToInt64(h.ContentLength)}, nil
}

// List returns the objects under prefix, in name order (ListObjectsV2, page by page).
func (s *Store) List(ctx context.Context, prefix string) ([]objectstore.Object, error) {
	var out []objectstore.Object
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.fail("list", prefix, err)
		}
		for _, o := range page.Contents {
			name, ok := strings.CutPrefix(aws.ToString(o.Key), s.prefix)
			if !ok {
				continue
			}
			out = append(out, objectstore.Object{Name: name, Size: aws.ToInt64(o.Size)})
		}
	}
	return out, nil
}

// Delete removes name; S3 answers a missing name with success too.
func (s *Store) Delete(ctx context.Context, name string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)})
	return s.fail("delete", name, err)
}

// status is the HTTP status of a failed request, 0 when there was no answer.
func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// fail turns an SDK error into one line that says what went wrong and what to do; it keeps
// the SDK's error in the chain. nil stays nil.
func (s *Store) fail(op, name string, err error) error {
	if err == nil {
		return nil
	}
	what := op
	if name != "" {
		what += " " + name
	}
	e := &Error{Store: s.String(), Op: what, Reason: s.reason(err), Err: err}
	if e.Reason == noObject {
		e.kind = fs.ErrNotExist
	}
	return e
}

// Error is a failed request to the store, said in one line.
type Error struct {
	Store, Op, Reason string
	Err               error
	kind              error // fs.ErrNotExist for a missing object
}

// Error is "STORE: OP: REASON".
func (e *Error) Error() string { return e.Store + ": " + e.Op + ": " + e.Reason }

// Unwrap returns the SDK's error, and fs.ErrNotExist for a missing object.
func (e *Error) Unwrap() []error {
	if e.kind != nil {
		return []error{e.Err, e.kind}
	}
	return []error{e.Err}
}

// noObject is the reason given for a missing object.
const noObject = "no such object"

func (s *Store) reason(err error) string {
	var (
		nsb *types.NoSuchBucket
		nsk *types.NoSuchKey
		nf  *types.NotFound
		ne  net.Error
	)
	code := status(err)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "interrupted (" + err.Error() + ")"
	case errors.As(err, &nsb) || apiCode(err) == "NoSuchBucket":
		return "bucket " + s.bucket + " does not exist: create it, or fix the bucket in public:"
	case errors.As(err, &nsk) || errors.As(err, &nf) || code == http.StatusNotFound:
		return noObject
	case apiCode(err) == "InvalidAccessKeyId" || apiCode(err) == "SignatureDoesNotMatch":
		return "the credentials were refused (" + apiCode(err) + "): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the profile in the shared credentials file"
	case code == http.StatusForbidden:
		return "access denied (" + or(apiCode(err), "403") + "): the credentials in the AWS environment may not do this in bucket " + s.bucket
	case strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "no EC2 IMDS role"):
		return "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE and the shared credentials file"
	case code >= 500:
		return fmt.Sprintf("the store failed (HTTP %d%s), retries included; try again later", code, paren(apiCode(err)))
	case code != 0:
		return fmt.Sprintf("the store refused it (HTTP %d%s)", code, paren(apiCode(err)))
	case errors.As(err, &ne) && strings.Contains(err.Error(), "dial "):
		return "cannot reach the endpoint " + s.endpoint + ": " + lastPart(err)
	case errors.As(err, &ne) || strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "EOF"):
		return "the connection to the endpoint " + s.endpoint + " failed, retries included: " + lastPart(err)
	}
	return lastPart(err)
}

// apiCode is the S3 error code of err, "" when it has none.
func apiCode(err error) string {
	var ae interface{ ErrorCode() string }
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// lastPart is the innermost message of an SDK error chain ("connection refused", "EOF").
func lastPart(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}
