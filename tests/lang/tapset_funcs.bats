#!/usr/bin/env bats
# Tapset functions written in the language (scripts/tapset/ansi.stp,
# indent.stp, stopwatch.stp, queue_stats.stp, conversions.stp): golden
# scripts, as helpers.bash runs them.

bats_require_minimum_version 1.5.0

load helpers

@test "tapset_ansi" {
	golden tapset_ansi
}

@test "tapset_indent" {
	golden tapset_indent
}

@test "tapset_stopwatch" {
	golden tapset_stopwatch
}

@test "tapset_queue_stats" {
	golden tapset_queue_stats
}

@test "tapset_conversions" {
	golden tapset_conversions
}
