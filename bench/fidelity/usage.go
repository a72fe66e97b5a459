package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// usage is what one run of a tool cost: wall time, processor time of the process and every
// process below it (Chromium's included), and the peak of their summed proportional set sizes
// (PSS: shared pages counted once), sampled every 100 ms.
type usage struct {
	Wall    time.Duration
	CPU     time.Duration
	PeakPSS int64 // bytes
}

// measured runs cmd to its end and measures it.
func measured(cmd *exec.Cmd) (usage, error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return usage{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	cpu := map[int]time.Duration{} // the last figure seen of each process of the tree
	var peak int64
	sample := func() {
		pids := tree(cmd.Process.Pid)
		var pss int64
		for _, pid := range pids {
			if c, err := testkit.ProcessCPU(pid); err == nil {
				cpu[pid] = c
			}
			pss += processPSS(pid)
		}
		peak = max(peak, pss)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			u := usage{Wall: time.Since(start), PeakPSS: peak}
			// A run shorter than a sample: the process's own peak RSS, as wait4 reports it.
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				u.PeakPSS = max(u.PeakPSS, ru.Maxrss<<10)
			}
			var sampled time.Duration
			for _, c := range cpu {
				sampled += c
			}
			// What wait4 reports holds the process and the descendants it reaped; the samples
			// also hold descendants reaped by init. The larger is the nearer.
			u.CPU = max(sampled, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			return u, err
		case <-tick.C:
			sample()
		}
	}
}

// tree lists pid and every process below it, from /proc/*/stat.
func tree(root int) []int {
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		ppid, _ := strconv.Atoi(f[1])
		parent[pid] = ppid
	}
	var out []int
	for pid := range parent {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// processPSS is a process's proportional set size in bytes (0 when it is gone).
func processPSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
