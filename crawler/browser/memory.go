package browser

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/internal/watch"
)

// sampleEvery is how often the browser's memory is measured for its peak.
const sampleEvery = time.Second

// sample measures the browser's memory every sampleEvery until ctx ends.
func (b *Browser) sample(ctx context.Context) {
	watch.Every(ctx, sampleEvery, func(context.Context) error { b.measure(); return nil }, func(error) {})
}

// measure returns the memory the running browser holds now (groupMemory), noting the peak.
func (b *Browser) measure() int64 {
	pid := b.pid()
	if pid == 0 {
		return 0
	}
	rss := groupMemory(pid)
	for {
		p := b.peak.Load()
		if rss <= p || b.peak.CompareAndSwap(p, rss) {
			return rss
		}
	}
}

// PeakRSS is the most memory the browser's processes were measured to hold together
// (groupMemory); 0 when unknown.
func (b *Browser) PeakRSS() int64 {
	b.measure()
	return b.peak.Load()
}

// overMemory restarts the browser of generation gen when it holds more than Options.Memory;
// pages rendering in its other tabs are then tried again in the new one.
func (b *Browser) overMemory(gen int) {
	if b.opt.Memory <= 0 {
		return
	}
	if rss := b.measure(); rss > b.opt.Memory {
		if err := b.restart(gen, "its memory is above the bound", "rss", rss, "bound", b.opt.Memory); err != nil {
			b.log.Warn("browser restart failed", "err", err)
		}
	}
}

// groupMemory is the memory the processes of process group pgid hold together, in bytes: the
// sum of their proportional set sizes (Linux /proc/PID/smaps_rollup, memory shared between them
// counted once), or of their resident set sizes where the kernel has no rollup (an upper
// bound). 0 when /proc cannot tell.
func groupMemory(pgid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum int64
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		b, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		g, rss, ok := statGroupRSS(b)
		if !ok || g != pgid {
			continue
		}
		if r, err := os.ReadFile(dir + "/smaps_rollup"); err == nil {
			if pss, ok := rollupPss(r); ok {
				sum += pss
				continue
			}
		}
		sum += rss * pageSize
	}
	return sum
}

// pageSize is the size of the pages /proc/PID/stat counts resident memory in.
var pageSize = int64(os.Getpagesize())

// statGroupRSS reads the process group and the resident pages from a /proc/PID/stat line.
func statGroupRSS(b []byte) (pgid int, rss int64, ok bool) {
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // from field 3, the state
	if len(f) < 22 {
		return 0, 0, false
	}
	g, err1 := strconv.Atoi(string(f[2]))              // field 5: pgrp
	r, err2 := strconv.ParseInt(string(f[21]), 10, 64) // field 24: rss
	return g, r, err1 == nil && err2 == nil
}

// rollupPss reads the Pss line of /proc/PID/smaps_rollup, in bytes.
func rollupPss(b []byte) (int64, bool) {
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			f := bytes.Fields(v)
			if len(f) != 2 || string(f[1]) != "kB" {
				return 0, false
			}
			n, err := strconv.ParseInt(string(f[0]), 10, 64)
			return n << 10, err == nil
		}
	}
	return 0, false
}
