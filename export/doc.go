// Package export writes what an archive has released in the forms replay tools load as they are:
// a standard CDXJ index of the public shards for pywb and OutbackCDX (WriteCDX), and a WACZ
// package for ReplayWeb.page (WriteWACZ). It reads the public directory only, through
// public (the shards' CDXJ and WARC files and the audit log): never the sealed
// repository nor its index, which it does not link.
//
// A Filter narrows what is exported: a URL prefix, a capture time range, and usage rules on the
// combined Content-Usage preferences each capture carries in the public CDXJ (--exclude-usage
// train-ai=n, --require-usage train-ai=y). Select applies it and counts what it left out, by reason.
package export
