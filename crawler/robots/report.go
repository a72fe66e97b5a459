package robots

import "github.com/archivectl/archivectl/aipref"

// Report is what `archivectl robots` prints for one URL, a JSON object: the contract fields first
// (docs/formats.md#robots-json), then the extras. The publisher self-check shows the same.
type Report struct {
	URL          string            `json:"url"`
	Allowed      bool              `json:"allowed"`
	EmbargoDays  *int              `json:"embargo_days"`  // null: no valid Archive-Embargo applies, or not allowed
	ContentUsage []string          `json:"content_usage"` // raw statements of the longest-matching Content-Usage rule(s)
	Usage        map[string]string `json:"usage"`         // combined per category: allow, disallow, unknown; null when not allowed
	Rule         Rule              `json:"rule"`          // the deciding rule
	CrawlDelay   *float64          `json:"crawl_delay"`   // seconds; null when the group sets none
	Robots       Source            `json:"robots"`        // where the rules came from
}

// Source says which robots.txt decided and how it was obtained.
type Source struct {
	URL          string `json:"url"`              // the robots.txt URL, or the file given with --robots
	Availability string `json:"availability"`     // available, unavailable (allow all), unreachable (disallow all)
	Status       int    `json:"status,omitempty"` // HTTP status of the last exchange
	Reason       string `json:"reason,omitempty"` // how the fetch ended
	Stale        bool   `json:"stale,omitempty"`  // a cached copy used while unreachable
}

// NewReport is the report of decision d, made by r, for the URL t.
func NewReport(t Target, d Decision, r *File) Report {
	res := Report{
		URL:          t.Raw,
		Allowed:      d.Allowed,
		ContentUsage: d.ContentUsage,
		Rule:         d.Rule,
		Robots: Source{
			Availability: r.Availability.String(),
			Reason:       r.Reason,
			Stale:        r.Stale,
		},
	}
	if res.ContentUsage == nil {
		res.ContentUsage = []string{}
	}
	if t.Origin != "" {
		res.Robots.URL = t.Origin + "/robots.txt"
	}
	if n := len(r.Hops); n > 0 {
		res.Robots.Status = r.Hops[n-1].Status
	}
	if d.Allowed && d.Period.Days() > 0 {
		days := d.Period.Days()
		res.EmbargoDays = &days
	}
	if d.CrawlDelay > 0 {
		s := d.CrawlDelay.Seconds()
		res.CrawlDelay = &s
	}
	if d.Allowed {
		combined := d.Usage()
		res.Usage = make(map[string]string)
		for _, label := range aipref.Categories() {
			res.Usage[label] = map[aipref.Value]string{aipref.Allow: "allow", aipref.Disallow: "disallow"}[combined.Get(label)]
			if res.Usage[label] == "" {
				res.Usage[label] = "unknown"
			}
		}
	}
	return res
}
