package public

import (
	"errors"
	"io/fs"
	"strings"
	"time"
)

// The pywb view of what is under embargo is split by release day (UTC), so that a release pass
// rewrites only the files of the days that came due and of the days its new tombstones release
// on, never a file the size of everything under embargo:
//
//	public/embargoed/embargoed-YYYYMMDD.cdxj   the tombstone lines of the captures under embargo releasing that day
//	public/access/embargo-YYYYMMDD.aclj        pywb block rules: one per URL key with such a capture
//
// pywb reads every *.cdxj of a directory named in its index_group and every *.aclj of a
// directory named in its acl_paths. A day whose last capture is released is left empty by the
// commit that releases it and removed by the next pass that commits. Archives of earlier versions
// have the one file public/access/embargo.aclj instead; the first pass of this version writes the
// days and empties it (a later one removes it).
const (
	EmbargoedPrefix = "embargoed" // file name prefix of a day's tombstone lines
	AccessPrefix    = "embargo"   // file name prefix of a day's access rules
	ACLExt          = ".aclj"     // pywb access-control files
	Day8            = "20060102"  // the layout of a day in a file name
)

// ReleaseDay is the day (UTC, as Day8) of a release time: the day file a capture's tombstone
// line and access rule are in.
func ReleaseDay(t time.Time) string { return t.UTC().Format(Day8) }

// DayFileName is the name of the day file of prefix and ext for day (as Day8).
func DayFileName(prefix, day, ext string) string { return prefix + "-" + day + ext }

// AccessDayName is the name of day's file of pywb access rules (in access/).
func AccessDayName(day string) string { return DayFileName(AccessPrefix, day, ACLExt) }

// EmbargoedDayName is the name of day's file of tombstone lines (in embargoed/).
func EmbargoedDayName(day string) string { return DayFileName(EmbargoedPrefix, day, CDXJExt) }

// DayFiles lists the days of the non-empty day files of prefix and ext in dir of fsys (the
// public side); a missing dir has none.
func DayFiles(fsys fs.FS, dir, prefix, ext string) ([]string, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var days []string
	for _, e := range ents {
		day, ok := DayOf(e.Name(), prefix, ext)
		if !ok {
			continue
		}
		if fi, err := e.Info(); err != nil {
			return nil, err
		} else if fi.Size() > 0 {
			days = append(days, day)
		}
	}
	return days, nil
}

// DayOf returns the day of a day file name of prefix and ext; ok is false for any other name.
func DayOf(name, prefix, ext string) (day string, ok bool) {
	d, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return "", false
	}
	if d, ok = strings.CutSuffix(d, ext); !ok || len(d) != len(Day8) {
		return "", false
	}
	if _, err := time.Parse(Day8, d); err != nil {
		return "", false
	}
	return d, true
}
