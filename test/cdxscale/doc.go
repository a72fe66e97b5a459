// Package cdxscale holds the test of the CDX server API and Memento at archive scale: the real
// `archivectl serve` over a generated public side (bench/lookup/synth), its answers compared
// with a plain reading of the public CDXJ files, and its latency under a paced load. Only tests.
package cdxscale
