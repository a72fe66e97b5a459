package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// solid is a w x h PNG, grey level v, whose first black rows are black.
func solid(t *testing.T, w, h, black int, v uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{v, v, v, 255}
			if y < black {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
