#!/bin/sh
# Wrapper of one test under `scripts/test.sh --sanitize=thread`: preloads
# the GLib lock shim and writes the TSan reports of this test (and of the
# programs it starts) to $STAGES_TSAN_DIR/<test>.<pid>, for
# tests/tsan-verdict.py to sort out.
name=$(basename "$1")
# GLib 2.74's slice allocator hands memory from thread to thread through its
# own magazines and locks (GLib-internal, invisible to TSan): the first
# access of a recycled slice (a GstMessage, a GArray) then looks like a race
# with the thread that allocated its chunk. Plain malloc, which TSan sees.
G_SLICE=always-malloc
export G_SLICE
LD_PRELOAD="$STAGES_TSAN_SHIM${LD_PRELOAD:+:$LD_PRELOAD}"
TSAN_OPTIONS="$TSAN_OPTIONS:log_path=$STAGES_TSAN_DIR/$name"
export LD_PRELOAD TSAN_OPTIONS
exec "$@"
