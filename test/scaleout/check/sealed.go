package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// openS3 opens the store storeURL names with the AWS environment's credentials, or exits.
func openS3(ctx context.Context, storeURL string) objectstore.Store {
	loc, err := objectstore.ParseLocation(storeURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := s3store.Open(ctx, loc, s3store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return s
}

// checkCheckpoint prints the last checkpoint in a node's sealed store, and is a problem when
// there is none.
func checkCheckpoint(storeURL string) {
	last, err := offsite.LastCheckpoint(context.Background(), openS3(context.Background(), storeURL))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if last == "" {
		problem("%s holds no checkpoint yet", storeURL)
		return
	}
	fmt.Printf("last checkpoint in %s: %s\n", storeURL, last)
}

// checkDenied: the environment's identity (a lookup node's) gets 403 when it lists the store or
// reads its last checkpoint's manifest (named by the caller, who may read it).
func checkDenied(storeURL, object string) {
	ctx := context.Background()
	s := openS3(ctx, storeURL)
	if _, err := s.List(ctx, ""); seaweedfs.Status(err) != http.StatusForbidden {
		problem("listing %s: %v, want 403", storeURL, err)
	}
	rc, err := s.Read(ctx, object, 0, -1)
	if err == nil {
		rc.Close()
	}
	if seaweedfs.Status(err) != http.StatusForbidden {
		problem("reading %s in %s: %v, want 403", object, storeURL, err)
	}
}
