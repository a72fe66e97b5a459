package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcfields"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

// minBodyCheck is the shortest payload Verify looks for inside tombstones: shorter bodies
// ("OK", "{}") occur in any JSON by chance.
const minBodyCheck = 8

// checkTombstone checks that a tombstone record holds the capture's public facts and no body byte.
// Tombstones of either form verify: named fields, or the JSON document of earlier versions.
func (v *verifier) checkTombstone(rec gowarc.WarcRecord, rel string, off int64, e store.Entry) {
	where := fmt.Sprintf("%s offset %d (tombstone of %s)", rel, off, e.ID)
	ctype := rec.WarcHeader().Get(gowarc.ContentType)
	if rec.Type() != gowarc.Metadata || (ctype != public.TombstoneType && ctype != public.TombstoneTypeJSON) {
		v.problem("%s: a %s record of type %q, not a metadata record of %s", where, rec.Type(), ctype, public.TombstoneType)
		return
	}
	if rec.WarcHeader().Get(gowarc.WarcRefersTo) != store.IDRef(e.ID) {
		v.problem("%s: WARC-Refers-To is %q", where, rec.WarcHeader().Get(gowarc.WarcRefersTo))
	}
	rd, err := rec.Block().RawBytes()
	if err != nil {
		v.problem("%s: %v", where, err)
		return
	}
	block, err := io.ReadAll(rd)
	if err != nil {
		v.problem("%s: %v", where, err)
		return
	}
	t, err := public.ParseTombstone(ctype, block)
	if err != nil {
		v.problem("%s: not a tombstone document: %v", where, err)
		return
	}
	want := tombstoneOf(e)
	wantJSON, _ := json.Marshal(want)
	got, _ := json.Marshal(t)
	if !bytes.Equal(wantJSON, got) {
		v.problem("%s: its facts differ from index.db", where)
	}
	var wantDoc any
	json.Unmarshal(wantJSON, &wantDoc)
	facts := map[string]bool{}
	for _, s := range jsonStrings(wantDoc, nil) {
		facts[s] = true
	}
	if fb, err := want.MarshalFields(); err == nil { // a header field is one "Name: value" string there
		fs, _ := warcfields.Parse(fb)
		for _, f := range fs {
			facts[f.Value] = true
		}
	}
	body, err := sealedPayload(layout.Sealed(v.dir), e.Response)
	if err != nil {
		v.problem("%s: read the sealed response: %v", where, err)
		return
	}
	if leaks(block, body, facts) {
		v.problem("%s: holds the capture's body", where)
	}
}

// leakWindow is the run of body bytes Verify looks for in a tombstone's strings: any run of
// 2×leakWindow body bytes contains a window at a multiple of leakWindow.
const leakWindow = 32

// leaks reports whether a tombstone block holds body bytes: the whole body (when at least
// minBodyCheck bytes) or any run of 2×leakWindow of them, in any string of the document (every
// string of a JSON document, every value of named fields) that is not one of the capture's
// indexed facts (its URL, headers, digests…), which may legitimately repeat text of the page. A
// block of neither form is checked raw.
func leaks(block, body []byte, facts map[string]bool) bool {
	if len(body) < minBodyCheck {
		return false
	}
	var strs []string
	var doc any
	if json.Unmarshal(block, &doc) == nil {
		strs = jsonStrings(doc, nil)
	} else if fs, err := warcfields.Parse(block); err == nil {
		for _, f := range fs {
			strs = append(strs, f.Name, f.Value)
		}
	}
	texts := [][]byte{block}
	if strs != nil {
		texts = texts[:0]
		for _, s := range strs {
			if !facts[s] {
				texts = append(texts, []byte(s))
			}
		}
	}
	for _, t := range texts {
		if bytes.Contains(t, body) {
			return true
		}
		for i := 0; i+leakWindow <= len(t); i += leakWindow {
			if bytes.Contains(body, t[i:i+leakWindow]) {
				return true
			}
		}
	}
	return false
}

// jsonStrings collects every string (keys and values) of a decoded JSON document.
func jsonStrings(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			out = jsonStrings(e, append(out, k))
		}
	}
	return out
}

// sealedPayload is the HTTP payload of a sealed response record.
func sealedPayload(sealed string, loc store.Location) ([]byte, error) {
	rec, err := store.ReadAt(sealed, loc)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	pb, ok := rec.Block().(gowarc.PayloadBlock)
	if !ok {
		return nil, nil
	}
	r, err := pb.PayloadBytes()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
