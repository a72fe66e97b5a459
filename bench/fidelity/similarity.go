package main

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
)

// tolerance is the most any of a pixel's red, green and blue may differ (of 255) for the pixel to
// count as the same in two screenshots: antialiasing and image decoding differ by a few levels.
const tolerance = 16

// matchAt is the similarity from which a replay counts as matching its live render.
const matchAt = 0.99

// similarity is the share of pixels of two same-sized screenshots whose red, green and blue each
// differ by at most tolerance. Screenshots of different sizes are compared over the first's
// size, a pixel the second lacks counting as different.
func similarity(a, b []byte) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, fmt.Errorf("live screenshot: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("replay screenshot: %w", err)
	}
	ra, rb := ia.Bounds(), ib.Bounds()
	same, total := 0, ra.Dx()*ra.Dy()
	if total == 0 {
		return 0, fmt.Errorf("live screenshot is empty")
	}
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			if x >= rb.Dx() || y >= rb.Dy() {
				continue
			}
			if near(ia.At(ra.Min.X+x, ra.Min.Y+y), ib.At(rb.Min.X+x, rb.Min.Y+y)) {
				same++
			}
		}
	}
	return float64(same) / float64(total), nil
}

func near(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool {
		x, y = x>>8, y>>8
		if x > y {
			return x-y <= tolerance
		}
		return y-x <= tolerance
	}
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}
