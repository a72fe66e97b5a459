package aipref

import (
	"slices"
	"testing"
)

func TestVocabulary(t *testing.T) {
	t.Parallel()
	want := []Category{{"train-ai", "AI training"}, {"ai-use", "AI use"}, {"search", "Search"}}
	got := Vocabulary()
	if !slices.Equal(got, want) {
		t.Fatalf("Vocabulary() = %q, want %q", got, want)
	}
	got[0].Name = "changed"
	if !slices.Equal(Vocabulary(), want) {
		t.Error("Vocabulary() changed after a caller modified its result")
	}
	for _, c := range want {
		if !known(c.Label) || !slices.Contains(Categories(), c.Label) {
			t.Errorf("%s is in the vocabulary but not known", c.Label)
		}
	}
	if known("train-genai") {
		t.Error("an unknown label is known")
	}
}
