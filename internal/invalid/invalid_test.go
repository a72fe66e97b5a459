package invalid

import (
	"errors"
	"fmt"
	"testing"
)

func TestReason(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("config: %w", &Value{What: "partition", Value: "3/3", Reason: "K must be from 0 to 2"})
	if got := err.Error(); got != `config: partition "3/3": K must be from 0 to 2` {
		t.Errorf("Error() = %q", got)
	}
	if r, ok := Reason(err); !ok || r != "K must be from 0 to 2" {
		t.Errorf("Reason = %q, %v", r, ok)
	}
	if _, ok := Reason(errors.New("other")); ok {
		t.Error("Reason found a Value in an error without one")
	}
}
