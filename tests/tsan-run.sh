#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Wrapper of one test under `scripts/test.sh --sanitize=thread`: preloads
# the GLib lock shim and writes the TSan reports of this test (and of the
# programs it starts) to $STAGES_TSAN_DIR/<test>.<pid>, for
# tests/tsan-verdict.py to sort out.
name=$(basename "$1")
# tests/retry.sh runs the suite named next.
[ "$name" = retry.sh ] && name=$(basename "$2")
LD_PRELOAD="$STAGES_TSAN_SHIM${LD_PRELOAD:+:$LD_PRELOAD}"
TSAN_OPTIONS="$TSAN_OPTIONS:log_path=$STAGES_TSAN_DIR/$name"
export LD_PRELOAD TSAN_OPTIONS
exec "$@"
