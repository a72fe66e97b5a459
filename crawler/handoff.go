package crawler

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/crawler/handoff"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/store"
	bolt "go.etcd.io/bbolt"
)

// HandOff hands the URLs this node meets on other partitions' origins to their nodes through
// a shared store, and fetches the URLs the other nodes hand to this one (package handoff).
type HandOff struct {
	Store    objectstore.Store
	Node     string        // this node's name: the writer's part of the batch names (publish.ValidNode)
	Interval time.Duration // how often batches are written and this node's are read (default 10 s)
	Linger   time.Duration // how long a node whose own work is done goes on reading hand-offs, from the last one (default 1 m)
}

// The defaults of HandOff.
const (
	DefaultHandOffInterval = 10 * time.Second
	DefaultHandOffLinger   = time.Minute
)

// The hand-off's state in frontier.db, kept across crawls of the data directory:
//
//	handoff-out      partition (4 bytes) + URL → outEntry: to be written in a batch
//	handoff-sending  seq (8 bytes) → object name, '\n', the batch's bytes: reserved, put not yet confirmed
//	handoff-in       object name → consumed: its URLs are in the frontier
//	handoff-release  URL handed in → its page's release time on the writer's node (RFC 3339)
//	meta handoff-seq the last batch number reserved
//
// A URL is in handoff-out before the page that found it is marked in the frontier, so a kill
// loses none: a page not marked is fetched again and hands its URLs off again. A batch's bytes
// are fixed before it is put, so a put repeated after a kill writes the same bytes under the
// same name (which the store accepts once). A batch is recorded as consumed, its URLs with it,
// in one transaction before it is deleted, and its name is kept, so it is consumed once
// whenever either node is killed.
var (
	bucketHandOut  = []byte("handoff-out")
	bucketHandSend = []byte("handoff-sending")
	bucketHandIn   = []byte("handoff-in")
	bucketHandRel  = []byte("handoff-release")
	keyHandSeq     = []byte("handoff-seq")
)

// outEntry is a URL waiting in handoff-out: the entry, and when its embedding page was
// captured, to find the page's capture id once it is sealed.
type outEntry struct {
	handoff.Entry
	ViaTime time.Time `json:"via_time,omitzero"`
}

// handOff records, durably, the items of other partitions for their nodes; without a HandOff
// they are only counted. Sitemaps are not handed off: their node reads its own.
func (c *Crawl) handOff(foreign []item) {
	h := c.cfg.HandOff
	if h == nil || len(foreign) == 0 {
		return
	}
	n := 0
	err := c.fr.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketHandOut)
		if err != nil {
			return err
		}
		for _, it := range foreign {
			u, err := url.Parse(it.URL)
			if err != nil || it.Kind == kindSitemap {
				continue
			}
			e := outEntry{Entry: handoff.Entry{URL: it.URL, Kind: handoff.KindPage, Depth: it.Depth, From: h.Node}}
			switch {
			case it.Kind == kindRequisite:
				e.Kind, e.Hops, e.RequisiteOf, e.RequisiteOfID, e.ViaTime = handoff.KindRequisite, it.Hops, it.Via, it.ViaID, it.ViaTime
			case it.Embedded: // a page that waits for the page embedding it (docs/rules.md#d27)
				e.RequisiteOf, e.RequisiteOfID, e.ViaTime = it.Via, it.ViaID, it.ViaTime
			}
			v, _ := json.Marshal(e)
			if err := b.Put(outKey(OriginPartition(u, c.cfg.Partition.N), it.URL), v); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		c.fail(fmt.Errorf("frontier: hand-off: %w", err))
		return
	}
	c.stats.add(func(s *Summary) { s.HandedOff += n })
}

// handOffDefaults fills the zero durations of cfg.HandOff, on a copy of it.
func handOffDefaults(cfg Config) Config {
	if cfg.HandOff == nil {
		return cfg
	}
	h := *cfg.HandOff
	if h.Interval <= 0 {
		h.Interval = DefaultHandOffInterval
	}
	if h.Linger <= 0 {
		h.Linger = DefaultHandOffLinger
	}
	cfg.HandOff = &h
	return cfg
}

// validHandOff checks cfg.HandOff, when there is one.
func validHandOff(cfg Config) error {
	h := cfg.HandOff
	switch {
	case h == nil:
		return nil
	case h.Store == nil:
		return errors.New("hand-off: no shared store")
	case cfg.Partition.N <= 1:
		return errors.New("hand-off: a crawl of every origin (no partition) has nothing to hand off")
	case h.Node == "" || strings.ContainsAny(h.Node, "/\\") || h.Node == "." || h.Node == "..":
		return fmt.Errorf("hand-off: node name %q cannot name objects (cmd checks it with publish.ValidNode)", h.Node)
	}
	return nil
}

func outKey(j int, rawURL string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(j)), rawURL...)
}

// startHandOff starts the hand-off's loop, which holds the crawl open (c.wg) while it lingers.
func (c *Crawl) startHandOff(a Archive) {
	if c.cfg.HandOff == nil {
		return
	}
	c.wg.Add(1)
	go c.handOffLoop(a)
}

// handOffArchive is the Archive a crawl seals through: a itself, or with a HandOff, a that
// carries the page release times of requisites handed in.
func (c *Crawl) handOffArchive(a Archive) Archive {
	if c.cfg.HandOff == nil {
		return a
	}
	return handedArchive{Archive: a, fr: c.fr}
}

// handOffLoop writes batches and reads this node's every Interval; once nothing else is left
// to do, it goes on until no batch came for Linger, then lets the crawl end.
func (c *Crawl) handOffLoop(a Archive) {
	defer c.wg.Done()
	h := c.cfg.HandOff
	t := time.NewTicker(h.Interval)
	defer t.Stop()
	last := c.now()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		start := c.now()
		if err := c.flushHandOffs(c.ctx, a, false); err != nil {
			c.log.Warn("hand-off: batches not written yet; trying again", "err", err)
		}
		n, err := c.readHandOffs(c.ctx)
		if err != nil {
			c.log.Warn("hand-off: this node's batches not read; trying again", "err", err)
		}
		// A store slow to answer (one allocating its first volume takes seconds) holds the other
		// nodes' batches back too: the time it took does not count towards Linger.
		if n > 0 || c.busy() || c.now().Sub(start) > h.Interval {
			last = c.now()
			continue
		}
		if c.now().Sub(last) >= h.Linger {
			return
		}
	}
}

// finishHandOff writes what is left to hand off, once the crawl's captures are sealed.
func (c *Crawl) finishHandOff(a Archive, interrupted bool) error {
	if c.cfg.HandOff == nil {
		return nil
	}
	limit := time.Minute
	if interrupted {
		limit = 15 * time.Second // a stopped node exits soon; what is left is kept in the frontier
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), limit)
	defer cancel()
	err := c.flushHandOffs(ctx, a, true)
	if err != nil && !interrupted {
		return fmt.Errorf("hand-off: URLs of other partitions not written to %s (kept in the frontier; run the crawl again): %w", c.cfg.HandOff.Store, err)
	}
	return nil
}

// busy reports whether the crawl has URLs queued or being fetched (a crawl at MaxPages has none).
func (c *Crawl) busy() bool {
	if c.full() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.origins {
		if o.running || len(o.queue) > 0 {
			return true
		}
	}
	return false
}

// flushHandOffs reserves batches of handoff-out under new numbers and puts every reserved
// batch. A requisite whose page is not sealed yet waits for the next flush, unless final.
func (c *Crawl) flushHandOffs(ctx context.Context, a Archive, final bool) error {
	if err := c.reserveHandOffs(ctx, a, final); err != nil {
		return err
	}
	type batch struct {
		seq  []byte
		name string
		body []byte
	}
	var todo []batch
	err := c.fr.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHandSend)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			name, body, _ := bytes.Cut(v, []byte{'\n'})
			todo = append(todo, batch{slices.Clone(k), string(name), slices.Clone(body)})
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	for _, bt := range todo {
		if err := handoff.Put(ctx, c.cfg.HandOff.Store, bt.name, bt.body); err != nil {
			return err
		}
		if err := c.fr.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketHandSend).Delete(bt.seq) }); err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
		c.log.Info("hand-off written", "object", bt.name, "bytes", len(bt.body))
	}
	return nil
}

// reserveHandOffs moves handoff-out's ready entries into numbered batches, one transaction.
func (c *Crawl) reserveHandOffs(ctx context.Context, a Archive, final bool) error {
	type pendingOut struct {
		key []byte
		j   int
		e   outEntry
	}
	var ready []pendingOut
	err := c.fr.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHandOut)
		if b == nil {
			return nil
		}
		urls := tx.Bucket(bucketURLs)
		return b.ForEach(func(k, v []byte) error {
			var e outEntry
			if len(k) < 4 || json.Unmarshal(v, &e) != nil {
				return nil // not ours to read: left alone
			}
			if e.RequisiteOf != "" && e.RequisiteOfID == "" {
				id, err := a.Captured(ctx, e.RequisiteOf, e.ViaTime)
				if err != nil {
					return err
				}
				if id == "" && !final && inFlight(urls, e.RequisiteOf) {
					return nil // its page is being sealed: its id comes with the next flush
				}
				e.RequisiteOfID = id
			}
			if e.RequisiteOf != "" {
				at, err := pageReleaseAt(ctx, a, e)
				if err != nil {
					return err
				}
				e.RequisiteOfReleaseAt = at
			}
			ready = append(ready, pendingOut{slices.Clone(k), int(binary.BigEndian.Uint32(k)), e})
			return nil
		})
	})
	if err != nil || len(ready) == 0 {
		return err
	}
	slices.SortStableFunc(ready, func(x, y pendingOut) int { return x.j - y.j })
	return c.fr.db.Update(func(tx *bolt.Tx) error {
		out, err := tx.CreateBucketIfNotExists(bucketHandSend)
		if err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		var seq uint64
		if v := meta.Get(keyHandSeq); len(v) == 8 {
			seq = binary.BigEndian.Uint64(v)
		}
		if c.cfg.Offsite != nil {
			// Numbers from the clock: a node restored from a checkpoint, whose frontier has the
			// number of then, never numbers a batch as one it reserved after it.
			seq = max(seq, uint64(c.now().UnixNano()))
		}
		for i := 0; i < len(ready); {
			k := i
			for k < len(ready) && ready[k].j == ready[i].j && k-i < handoff.MaxBatch {
				k++
			}
			entries := make([]handoff.Entry, 0, k-i)
			for _, p := range ready[i:k] {
				entries = append(entries, p.e.Entry)
				if err := tx.Bucket(bucketHandOut).Delete(p.key); err != nil {
					return err
				}
			}
			seq++
			name := handoff.Name(ready[i].j, c.cfg.HandOff.Node, seq)
			v := append(append([]byte(name), '\n'), handoff.Encode(entries)...)
			if err := out.Put(binary.BigEndian.AppendUint64(nil, seq), v); err != nil {
				return err
			}
			i = k
		}
		return meta.Put(keyHandSeq, binary.BigEndian.AppendUint64(nil, seq))
	})
}

// releaseTimes is an Archive that tells a sealed capture's release time (StoreArchive does).
type releaseTimes interface {
	ReleaseAt(ctx context.Context, id string) (time.Time, bool, error)
}

// pageReleaseAt is when the page embedding e becomes public: its release time in a, or, when a
// cannot tell (the page's seal failed, an Archive that does not say), a bound of it: its
// capture time plus the longest period, past which no capture's release time lies.
func pageReleaseAt(ctx context.Context, a Archive, e outEntry) (time.Time, error) {
	if r, ok := a.(releaseTimes); ok && e.RequisiteOfID != "" {
		at, found, err := r.ReleaseAt(ctx, e.RequisiteOfID)
		if err != nil || found {
			return at, err
		}
	}
	t := e.ViaTime
	if t.IsZero() {
		t = time.Now()
	}
	return t.Add(embargo.Quarter.Duration()).UTC(), nil
}

// handedArchive is a's captures with, for a requisite handed in by another node, the release
// time of its page there (handoff-release), so that the store withholds it as long.
type handedArchive struct {
	Archive
	fr *frontier
}

func (h handedArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	err := h.fr.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHandRel)
		if b == nil {
			return nil
		}
		for i := range caps {
			if v := b.Get([]byte(caps[i].URL)); v != nil && caps[i].RequisiteOf != "" {
				at, err := time.Parse(time.RFC3339Nano, string(v))
				if err != nil {
					return fmt.Errorf("hand-off: release time of %s's page: %w", caps[i].URL, err)
				}
				caps[i].RequisiteOfReleaseAt = at
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return h.Archive.Seal(ctx, caps)
}

// ReleaseAt is the inner Archive's, when it tells release times.
func (h handedArchive) ReleaseAt(ctx context.Context, id string) (time.Time, bool, error) {
	if r, ok := h.Archive.(releaseTimes); ok {
		return r.ReleaseAt(ctx, id)
	}
	return time.Time{}, false, nil
}

// inFlight reports whether the frontier has rawURL waiting or being sealed.
func inFlight(urls *bolt.Bucket, rawURL string) bool {
	if urls == nil {
		return false
	}
	v := urls.Get([]byte(rawURL))
	return v != nil && (len(v) == 0 || urlState(v[0]) == pending || urlState(v[0]) == sealing)
}

// readHandOffs takes this node's batches from the store: the URLs its frontier lacks are
// added and queued, the batch is recorded as consumed in the same transaction, then deleted.
// It returns how many URLs were queued.
func (c *Crawl) readHandOffs(ctx context.Context) (int, error) {
	h := c.cfg.HandOff
	objs, err := handoff.List(ctx, h.Store, c.cfg.Partition.K)
	if err != nil {
		return 0, err
	}
	queued := 0
	for _, o := range objs {
		if c.badHandOff == nil {
			c.badHandOff = map[string]bool{}
		}
		if c.badHandOff[o.Name] {
			continue
		}
		consumed := false
		if err := c.fr.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketHandIn)
			consumed = b != nil && b.Get([]byte(o.Name)) != nil
			return nil
		}); err != nil {
			return queued, fmt.Errorf("frontier: %w", err)
		}
		if !consumed {
			entries, err := handoff.Read(ctx, h.Store, o)
			if err != nil {
				if !errors.Is(err, handoff.ErrBad) {
					return queued, err
				}
				c.log.Error("hand-off: a batch for this node cannot be read: left in the store, not consumed", "object", o.Name, "err", err)
				c.badHandOff[o.Name] = true
				continue
			}
			n, err := c.consume(o.Name, entries)
			if err != nil {
				return queued, err
			}
			queued += n
		}
		if !c.consumedSafely(o.Name) {
			continue // deleted once a checkpoint holding its consumption is in the sealed store
		}
		if err := h.Store.Delete(ctx, o.Name); err != nil {
			return queued, err
		}
	}
	return queued, nil
}

// consumedSafely reports whether the batch name, consumed, may be deleted from the store: at
// once without a sealed store; with one, once a checkpoint taken after its consumption was
// recorded is in the sealed store, so that a node restored from the last checkpoint finds the
// batches whose consumption it does not hold still there and consumes them again
// (docs/architecture.md#sealed-bucket). A batch found consumed by an earlier run counts as
// consumed when this run first sees it.
func (c *Crawl) consumedSafely(name string) bool {
	if c.cfg.Offsite == nil {
		return true
	}
	if c.consumedAt == nil {
		c.consumedAt = map[string]time.Time{}
	}
	at, ok := c.consumedAt[name]
	if !ok {
		at = c.now()
		c.consumedAt[name] = at
	}
	if c.cfg.Offsite.Committed().After(at) {
		delete(c.consumedAt, name)
		return true
	}
	return false
}

// consume adds a batch's new URLs to the frontier and records the batch as consumed, in one
// transaction, then queues them.
func (c *Crawl) consume(name string, entries []handoff.Entry) (int, error) {
	var items []item
	releases := map[string]time.Time{}
	for _, e := range entries {
		u, err := url.Parse(e.URL)
		if err != nil {
			continue
		}
		cu, ok := extract.Canonical(u)
		switch {
		case !ok || cu.String() != e.URL || !c.cfg.Partition.Owns(cu) || c.scope.excluded(cu) || checkURLLength(e.URL, c.cfg.MaxURLLength) != nil:
			c.log.Warn("hand-off: URL not taken (not canonical, not this partition's, excluded or too long)", "url", e.URL, "object", name)
			continue
		}
		it := item{URL: e.URL, Depth: e.Depth}
		switch {
		case e.Kind == handoff.KindRequisite:
			it.Kind, it.Hops, it.Via, it.ViaID = kindRequisite, e.Hops, e.RequisiteOf, e.RequisiteOfID
			releases[e.URL] = e.RequisiteOfReleaseAt
		case e.RequisiteOf != "": // an embedded page (docs/rules.md#d27)
			it.Via, it.ViaID, it.Embedded = e.RequisiteOf, e.RequisiteOfID, true
			releases[e.URL] = e.RequisiteOfReleaseAt
		}
		items = append(items, it)
	}
	c.fr.mu.Lock()
	fresh := items[:0]
	for _, it := range items {
		if _, ok := c.fr.seen[it.URL]; !ok {
			fresh = append(fresh, it)
		}
	}
	c.fr.mu.Unlock()
	err := c.fr.db.Update(func(tx *bolt.Tx) error {
		in, err := tx.CreateBucketIfNotExists(bucketHandIn)
		if err != nil {
			return err
		}
		rel, err := tx.CreateBucketIfNotExists(bucketHandRel)
		if err != nil {
			return err
		}
		urls := tx.Bucket(bucketURLs)
		for _, it := range fresh {
			if urls.Get([]byte(it.URL)) != nil {
				continue
			}
			if err := urls.Put([]byte(it.URL), encodeItem(it, pending, time.Time{})); err != nil {
				return err
			}
			if at := releases[it.URL]; !at.IsZero() {
				if err := rel.Put([]byte(it.URL), []byte(at.UTC().Format(time.RFC3339Nano))); err != nil {
					return err
				}
			}
		}
		return in.Put([]byte(name), []byte{1})
	})
	if err != nil {
		return 0, fmt.Errorf("frontier: %w", err)
	}
	fresh = c.fr.claim(fresh)
	c.log.Info("hand-off read", "object", name, "urls", len(entries), "new", len(fresh))
	c.stats.add(func(s *Summary) { s.HandedIn += len(fresh) })
	c.enqueue(fresh)
	return len(fresh), nil
}
