package oneline

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	read := errors.New("unexpected EOF")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("bad"), "bad"},
		{"newlines", errors.New("a\nb\nc"), "a b c"},
		{"joined, repeats once", errors.Join(read, read), "unexpected EOF"},
		{"joined, distinct", errors.Join(read, fmt.Errorf("close: %w", read)), "unexpected EOF; close: unexpected EOF"},
		{"nested", errors.Join(errors.Join(read, errors.New("x\ny")), read), "unexpected EOF; x y; unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Of(tc.err); got != tc.want {
				t.Errorf("Of = %q, want %q", got, tc.want)
			}
		})
	}
}
