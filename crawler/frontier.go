package crawler

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// item is one URL waiting in the frontier.
type item struct {
	URL       string
	Depth     int // links followed from a seed
	Redirects int // consecutive redirects that led here
	Kind      kind
	Hops      int       // a requisite: embeds followed from its page (1 for the page's own); a sitemap: index files followed
	Via       string    // a requisite or an embedded page: the page or stylesheet that embeds it; another page: the sitemap that listed it
	ViaTime   time.Time // a requisite or an embedded page: when Via was captured, to find its record id on resume
	ViaID     string    // a requisite or an embedded page: the capture id of Via, once it is sealed
	Lastmod   string    // a page listed in a sitemap: its lastmod there, as written
	Embedded  bool      // a page embedded by Via (an in-scope embed): crawled as a page, sealed as Via's requisite (docs/rules.md#d27)
	load      *loading  // a crawl with a browser: the visit the browser may wait for (not persisted)
}

// kind is why a URL is fetched.
type kind byte

const (
	kindPage      kind = iota // in the scope: a seed, a link, a redirect, a sitemap entry
	kindRequisite             // embedded by a page (or a stylesheet) and outside the scope or depth
	kindSitemap               // a sitemap or sitemap index
)

// extended reports whether an item carries more than URL, depth and redirects.
func (it item) extended() bool {
	return it.Kind != kindPage || it.Hops != 0 || it.Via != "" || it.ViaID != "" || it.Lastmod != "" || !it.ViaTime.IsZero() || it.Embedded
}

// requisite reports whether the item is sealed as a requisite of Via: a requisite, or a page
// it embeds in the scope (docs/rules.md#d27).
func (it item) requisite() bool { return it.Kind == kindRequisite || it.Embedded }

// urlState is where a URL stands in the persisted frontier.
type urlState byte

const (
	pending urlState = iota // to fetch
	sealing                 // fetched and being sealed: on resume, the index says whether it landed
	done                    // sealed
	skipped                 // disallowed, out of limits or failed: not fetched again by this crawl
)

var (
	bucketURLs = []byte("urls")
	bucketMeta = []byte("meta")
	keySeeds   = []byte("seeds")
	keyDone    = []byte("complete")
)

// frontier is the crawl's persisted URL set (frontier.db) and the in-memory set of URLs seen.
type frontier struct {
	db   *bolt.DB
	mu   sync.Mutex
	seen map[string]struct{}
	// pause is read-held by the sealer while it writes marks here or seals captures in the
	// store, and held by a checkpoint, which so copies both at one moment (checkpoint.go).
	pause sync.RWMutex
}

// resumed is what a reopened frontier found: work left and work that may already be sealed.
type resumed struct {
	Pending []item
	Sealing map[string]time.Time // URL → capture time of a seal that may not have finished
	Done    int                  // pages already sealed by this crawl
	Fresh   bool                 // a new crawl (no state, a completed crawl, or other seeds)
}

// openFrontier opens path, starting a new crawl unless an unfinished crawl of the same seeds is there.
func openFrontier(path string, seeds []string, timeout time.Duration) (*frontier, resumed, error) {
	var res resumed
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, NoFreelistSync: true})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, res, lockfile.Busy(path)
		}
		return nil, res, fmt.Errorf("open frontier %s: %w", path, err)
	}
	f := &frontier{db: db, seen: map[string]struct{}{}}
	sum := seedsKey(seeds)
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if meta.Get(keyDone) != nil || string(meta.Get(keySeeds)) != sum {
			res.Fresh = true
			if tx.Bucket(bucketURLs) != nil {
				if err := tx.DeleteBucket(bucketURLs); err != nil {
					return err
				}
			}
			if err := meta.Delete(keyDone); err != nil {
				return err
			}
			if err := meta.Put(keySeeds, []byte(sum)); err != nil {
				return err
			}
		}
		urls, err := tx.CreateBucketIfNotExists(bucketURLs)
		if err != nil {
			return err
		}
		res.Sealing = map[string]time.Time{}
		return urls.ForEach(func(k, v []byte) error {
			it, st, at := decodeItem(k, v)
			f.seen[it.URL] = struct{}{}
			switch st {
			case pending:
				res.Pending = append(res.Pending, it)
			case sealing:
				res.Sealing[it.URL] = at
				res.Pending = append(res.Pending, it) // until the index says otherwise
			case done:
				res.Done++
			}
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, res, fmt.Errorf("frontier %s: %w", path, err)
	}
	return f, res, nil
}

// seedsKey identifies a seed list, order and duplicates aside.
func seedsKey(seeds []string) string {
	s := slices.Clone(seeds)
	slices.Sort(s)
	s = slices.Compact(s)
	h := sha256.New()
	for _, x := range s {
		h.Write([]byte(x))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// encodeItem is a URL's persisted value: state, depth, redirects, (sealing) the capture time,
// then, for an item that has them, kind, hops, via, its capture time and id, lastmod and
// (one byte, 1, for an embedded page; absent in frontiers written before it) embedded.
func encodeItem(it item, st urlState, at time.Time) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+8)
	b = append(b, byte(st))
	b = binary.AppendUvarint(b, uint64(it.Depth))
	b = binary.AppendUvarint(b, uint64(it.Redirects))
	if st == sealing {
		b = binary.BigEndian.AppendUint64(b, uint64(at.UnixNano()))
	}
	if it.extended() {
		b = append(b, byte(it.Kind))
		b = binary.AppendUvarint(b, uint64(it.Hops))
		b = appendString(b, it.Via)
		var vt int64
		if !it.ViaTime.IsZero() {
			vt = it.ViaTime.UnixNano()
		}
		b = binary.BigEndian.AppendUint64(b, uint64(vt))
		b = appendString(b, it.ViaID)
		b = appendString(b, it.Lastmod)
		if it.Embedded {
			b = append(b, 1)
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// readString reads what appendString wrote; ok is false when v is too short.
func readString(v []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(v)
	if k <= 0 || uint64(len(v)-k) < n {
		return "", nil, false
	}
	return string(v[k : k+int(n)]), v[k+int(n):], true
}

// decodeExtension reads the extended fields of an item; missing ones stay zero.
func decodeExtension(it *item, v []byte) {
	if len(v) == 0 {
		return
	}
	it.Kind, v = kind(v[0]), v[1:]
	h, n := binary.Uvarint(v)
	if n <= 0 {
		return
	}
	it.Hops, v = int(h), v[n:]
	var ok bool
	if it.Via, v, ok = readString(v); !ok || len(v) < 8 {
		return
	}
	if vt := int64(binary.BigEndian.Uint64(v)); vt != 0 {
		it.ViaTime = time.Unix(0, vt).UTC()
	}
	v = v[8:]
	if it.ViaID, v, ok = readString(v); !ok {
		return
	}
	if it.Lastmod, v, ok = readString(v); !ok {
		return
	}
	it.Embedded = len(v) > 0 && v[0] == 1
}

func decodeItem(k, v []byte) (item, urlState, time.Time) {
	it := item{URL: string(k)}
	if len(v) == 0 {
		return it, pending, time.Time{}
	}
	st := urlState(v[0])
	v = v[1:]
	d, n := binary.Uvarint(v)
	if n > 0 {
		it.Depth, v = int(d), v[n:]
	}
	r, n := binary.Uvarint(v)
	if n > 0 {
		it.Redirects, v = int(r), v[n:]
	}
	var at time.Time
	if st == sealing && len(v) >= 8 {
		at = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		v = v[8:]
	}
	decodeExtension(&it, v)
	return it, st, at
}

// claim marks the URLs of items as seen and returns those that were not, in order, in
// items' own array (a page can link 10,000 URLs: no copy of them is made).
func (f *frontier) claim(items []item) []item {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := items[:0]
	for _, it := range items {
		if _, ok := f.seen[it.URL]; ok {
			continue
		}
		f.seen[it.URL] = struct{}{}
		out = append(out, it)
	}
	clear(items[len(out):])
	return out
}

// urlChange is one state change of a URL, with the new URLs its fetch found.
type urlChange struct {
	Item  item
	State urlState
	At    time.Time // capture time, for sealing
	Found []item
}

// record persists marks in one transaction: it returns when they are durable.
func (f *frontier) record(marks []urlChange) error {
	return f.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketURLs)
		for _, m := range marks {
			for _, it := range m.Found {
				if b.Get([]byte(it.URL)) == nil {
					if err := b.Put([]byte(it.URL), encodeItem(it, pending, time.Time{})); err != nil {
						return err
					}
				}
			}
			if err := b.Put([]byte(m.Item.URL), encodeItem(m.Item, m.State, m.At)); err != nil {
				return err
			}
		}
		return nil
	})
}

// add persists new pending items (seeds) that were not known.
func (f *frontier) add(items []item) error {
	return f.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketURLs)
		for _, it := range items {
			if b.Get([]byte(it.URL)) == nil {
				if err := b.Put([]byte(it.URL), encodeItem(it, pending, time.Time{})); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// complete records that the crawl ended by itself: the next run with these seeds starts afresh.
func (f *frontier) complete() error {
	return f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyDone, []byte{1})
	})
}

// size is the number of URLs known.
func (f *frontier) size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// writeTo writes a consistent copy of frontier.db to w (Tx.WriteTo in one read transaction).
func (f *frontier) writeTo(w io.Writer) (n int64, err error) {
	err = f.db.View(func(tx *bolt.Tx) error {
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("snapshot of frontier.db: %w", err)
	}
	return n, nil
}

// close closes frontier.db.
func (f *frontier) close() error { return f.db.Close() }
