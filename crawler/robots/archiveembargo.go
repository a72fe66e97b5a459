package robots

import "github.com/archivectl/archivectl/embargo"

// embargoRule is a valid archive-embargo line.
type embargoRule struct {
	group  int32
	period embargo.Period
}

// addEmbargo files a valid archive-embargo line (w, m or q, any case); any other value is
// ignored (embargo draft -00 §2).
func addEmbargo(p *Policy, group int32, r Record) {
	if period, ok := embargo.ParsePeriod(r.Value); ok {
		p.embargoes = append(p.embargoes, embargoRule{group: group, period: period})
	}
}
