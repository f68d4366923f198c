#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Containerfile and runs the image it makes; ends with
# "N passed, N failed" (scripts/test.sh --container; .ci/run runs it).
#
#   scripts/container-check.sh                   without a container engine,
#                                                in a debootstrap root (as root)
#   scripts/container-check.sh --engine=podman   with podman (or docker);
#                                                STAGES_ENGINE_ARGS are added
#                                                to its build and run commands
#
# Without an engine the Containerfile is built from its own text, step by
# step, as an engine builds it: FROM debian:12 is a minimal Debian 12 root
# made with debootstrap from the archive this machine's apt uses (with the
# image's apt sources and the updates applied), and each COPY, RUN and
# WORKDIR adds an overlayfs layer over it. COPY takes git's view of the tree
# (tracked and untracked, not ignored files: .dockerignore says the same to
# an engine); RUN is /bin/sh -c in chroot, in the WORKDIR, with the ENV set
# so far and the root's own /proc, /dev/pts and /dev/shm (scripts/distro.sh);
# ENV and WORKDIR hold for later steps and the image. Any other instruction
# or form is refused, never skipped. Layers are kept under
# $STAGES_ROOTS/container/ and named by the steps up to them and the files
# they copy, so only the steps from the first change on run again; the
# base and every layer are made afresh once a week (a pulled debian:12
# moves too). Two tests: the image builds (the Containerfile's last RUN is
# its own smoke check), and the image runs a batch in its working directory
# as docs/distributed.md's Kubernetes Job does (stage-batch makes a clip,
# one shard resizes it with a profile, the profile is merged).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
. scripts/deps.sh
. scripts/distro.sh

engine=""
for a in "$@"; do
  case "$a" in
    -h|--help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --engine=podman|--engine=docker) engine="${a#--engine=}" ;;
    *) echo "container-check.sh: unknown argument $a (--help)" >&2; exit 2 ;;
  esac
done

dir="$STAGES_ROOTS/container"
base="$dir/debian-12"
layers="$dir/layers"
merged="$dir/merged"
scratch="$dir/run"
passed=0
failed=0

say () { echo "container-check: $*"; }
result () {
  if [ "$1" = ok ]; then passed=$((passed + 1)); say "ok: $2"; else failed=$((failed + 1)); say "FAIL: $2"; fi
}
finish () {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# shellcheck disable=SC2016
# What the image does once built: one pod of docs/distributed.md's
# Kubernetes Job (its command and flags, in the image's WORKDIR /data, with
# a one-row manifest and a relative input path), then the merge; the
# output must decode at the size asked for.
RUN_TEST='set -e
[ "$(pwd)" = /data ] || { echo "the image works in $(pwd), not /data" >&2; exit 1; }
printf "name,frames\nclip1,10\n" > clips.csv
stage-batch --progress=none "videotestsrc num-buffers={frames} ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! openh264enc ! h264parse ! mp4mux ! filesink location=clips/{name}.mp4" clips.csv
printf "input,width,height\nclips/clip1.mp4,160,120\n" > jobs.csv
JOB_COMPLETION_INDEX=0 STAGE_BATCH_SHARDS=8 stage-batch --resume --jobs=auto --progress=jsonl --state-dir=/data/state --profile=/data/prof "filesrc location={input} ! qtdemux ! h264parse ! avdec_h264 ! stageresize width={width} height={height} ! openh264enc ! h264parse ! mp4mux ! filesink location=/data/out/{stem}-{width}.mp4" /data/jobs.csv
stage-batch --merge-profile /data/prof
test -s /data/prof/trace.json
gst-launch-1.0 -q filesrc location=/data/out/clip1-160.mp4 ! qtdemux ! h264parse ! avdec_h264 ! video/x-raw,width=160,height=120 ! fakesink'

# --- the Containerfile, read as an engine reads it -------------------------

# Fills step_line, step_kw and step_arg: continued lines joined, comments
# and blank lines left out. Fails on anything the chroot build would not
# do as an engine does.
cf_parse () {
  local line n=0 start=0 text="" kw arg
  step_line=(); step_kw=(); step_arg=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%$'\r'}
    [[ "$line" =~ ^[[:space:]]*(#.*)?$ ]] && continue
    [ -z "$text" ] && start=$n
    if [[ "$line" =~ ^(.*)\\[[:space:]]*$ ]]; then
      text+="${BASH_REMATCH[1]}"
      continue
    fi
    text+="$line"
    [[ "$text" =~ ^[[:space:]]*([A-Za-z]+)[[:space:]]*(.*)$ ]] || {
      say "Containerfile:$start: cannot read this line" >&2; return 1; }
    kw=${BASH_REMATCH[1]^^}
    arg=${BASH_REMATCH[2]}
    arg=${arg%"${arg##*[![:space:]]}"}
    cf_check "$start" "$kw" "$arg" || return 1
    step_line+=("$start"); step_kw+=("$kw"); step_arg+=("$arg")
    text=""
  done < Containerfile
  [ -z "$text" ] || { say "Containerfile: ends in a continued line" >&2; return 1; }
  [ "${step_kw[0]:-}" = FROM ] || { say "Containerfile: the first instruction must be FROM" >&2; return 1; }
}

cf_check () {
  local at="Containerfile:$1: $2" kw=$2 arg=$3 w
  case "$kw" in
    FROM)
      [ ${#step_kw[@]} -eq 0 ] || { say "$at: one stage only here" >&2; return 1; }
      case "$arg" in
        debian:12|debian:bookworm|docker.io/library/debian:12|docker.io/library/debian:bookworm) ;;
        *) say "$at: only debian:12 is made here (with debootstrap), not $arg" >&2; return 1 ;;
      esac ;;
    RUN)
      # exec form, flags (--mount, --network) and here-documents differ
      # between engines' builders; the shell form is the same everywhere
      [[ "$arg" =~ ^(\[|--) || "$arg" == *"<<"* || -z "$arg" ]] && {
        say "$at: only the shell form, without flags or here-documents, is built here" >&2; return 1; }
      ;;
    COPY|WORKDIR|ENV)
      # no flags, JSON, quoting, globs or variables: each word is taken as it is
      [[ "$arg" =~ ^(\[|--) || "$arg" =~ [\"\'\$\\*?] || -z "$arg" ]] && {
        say "$at: only plain words (no flags, quotes, globs or variables) are understood here" >&2; return 1; }
      case "$kw" in
        COPY)
          # shellcheck disable=SC2086
          set -- $arg
          [ $# -ge 2 ] || { say "$at: needs a source and a destination" >&2; return 1; }
          [ $# -eq 2 ] || [[ "${!#}" == */ ]] || { say "$at: several sources need a destination ending in /" >&2; return 1; }
          for w in "${@:1:$#-1}"; do
            [[ "$w" == /* || "/$w/" == */../* ]] && { say "$at: $w is outside the build context" >&2; return 1; }
          done ;;
        WORKDIR)
          [[ "$arg" =~ [[:space:]] ]] && { say "$at: one path" >&2; return 1; } ;;
        ENV)
          for w in $arg; do
            [[ "$w" =~ ^[A-Za-z_][A-Za-z0-9_]*=.*$ ]] || { say "$at: only KEY=VALUE words are understood here, not $w" >&2; return 1; }
          done ;;
      esac ;;
    *)
      say "$at: not understood here (FROM, COPY, RUN, WORKDIR and ENV are)" >&2
      return 1 ;;
  esac
  return 0
}

# --- the base: debian:12 ---------------------------------------------------

# The image's apt sources (deb822, as the debian:12 image has them) on the
# archive apt uses here.
base_sources () {
  local mirror=$1 security
  security=$(grep -hoE '^URIs: *http[^ ]*/debian-security/?$|^deb +http[^ ]*/debian-security/? ' \
               /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
             | head -n 1 | grep -oE 'http[^ ]*')
  printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' "$mirror"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "${security:-http://deb.debian.org/debian-security}"
}

# Makes $base unless a week-old or newer one is there; a new base drops
# every layer made on the old one.
base_make () {
  local made="$dir/debian-12.made" new="$dir/debian-12.new" st=0
  if [ -x "$base/usr/bin/apt-get" ] && [ -e "$made" ] && [ -z "$(find "$made" -mtime +6)" ]; then
    cp -L /etc/resolv.conf "$base/etc/resolv.conf" 2>/dev/null || true
    return 0
  fi
  say "making debian:12 in $base (debootstrap, then the image's apt sources and updates)"
  rm -rf "$base" "$layers" "$made"
  stages_distro_debootstrap bookworm "$new" || return 1
  base_sources "$(stages_distro_mirror)" > "$new/etc/apt/sources.list.d/debian.sources"
  rm -f "$new/etc/apt/sources.list"
  cp -L /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
  stages_distro_mount "$new"
  chroot "$new" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c \
    'apt-get update -qq && apt-get upgrade -y -qq && apt-get clean && rm -rf /var/lib/apt/lists/*' \
    </dev/null >&2 || st=1
  stages_distro_umount "$new"
  [ $st -eq 0 ] || { say "apt-get in $new failed" >&2; return 1; }
  mv "$new" "$base"
  date -u +%FT%TZ > "$made"
}

# --- layers ----------------------------------------------------------------

# The context's files under a COPY source (NUL-separated): git's view of
# the tree, "." for all of it.
ctx_files () {
  local src=${1#./} f
  src=${src%/}
  git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
    [ -e "$f" ] || [ -L "$f" ] || continue   # deleted, not yet staged
    if [ -z "$src" ] || [ "$src" = . ] || [ "$f" = "$src" ] || [[ "$f" == "$src"/* ]]; then
      printf '%s\0' "$f"
    fi
  done
}

# Names what a COPY copies: each file's mode, path and content.
ctx_digest () {
  local src
  for src in "$@"; do
    ctx_files "$src" | xargs -0 -r stat -c '%a %n'
    ctx_files "$src" | xargs -0 -r sha256sum
  done | sha256sum | cut -c1-16
}

# Fails when a path inside the root goes through a symbolic link, which
# the host, not the root, would resolve.
root_path_plain () {
  local p="" c rest=${1#/} parts
  IFS=/ read -r -a parts <<< "$rest"
  for c in "${parts[@]}"; do
    [ -z "$c" ] && continue
    p="$p/$c"
    [ -L "$merged$p" ] && { say "$1 goes through the link $p: not followed here" >&2; return 1; }
  done
  return 0
}

# COPY SRC... DEST into the mounted root.
do_copy () {
  local dest=${!#} src tmp files n=$# st=0
  [[ "$dest" == /* ]] || dest="${wd%/}/$dest"
  root_path_plain "$dest" || return 1
  for src in "${@:1:$#-1}"; do
    files=$(ctx_files "$src" | tr '\0' '\n')
    [ -n "$files" ] || { say "COPY $src: no such file in the build context" >&2; return 1; }
    tmp=$(mktemp -d) && chmod 755 "$tmp"
    ctx_files "$src" | tar -cf - --null -T - --owner=0 --group=0 --numeric-owner | tar -xf - -C "$tmp" || st=1
    src=${src#./}; src=${src%/}
    if [ "$files" = "$src" ]; then
      # a file: into DEST/ or as DEST
      if [ $n -gt 2 ] || [[ "$dest" == */ ]]; then
        mkdir -p "$merged$dest" && cp -a "$tmp/$src" "$merged$dest/" || st=1
      else
        mkdir -p "$(dirname "$merged$dest")" && cp -a "$tmp/$src" "$merged$dest" || st=1
      fi
    else
      # a folder: its contents into DEST
      mkdir -p "$merged$dest" && cp -a "$tmp/${src:-.}/." "$merged$dest/" || st=1
    fi
    rm -rf "$tmp"
  done
  return $st
}

# /bin/sh -c $1 in the mounted root as an engine runs it: a clean
# environment with the image's ENV, in its WORKDIR, with its own /proc,
# /dev/pts and /dev/shm; $2, when given, is a time limit in seconds.
root_sh () {
  local st=0 limit=()
  [ -n "${2:-}" ] && limit=(timeout "$2")
  stages_distro_mount "$merged"
  # shellcheck disable=SC2016
  ${limit[@]+"${limit[@]}"} chroot "$merged" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root ${image_env[@]+"${image_env[@]}"} \
    /bin/sh -c 'cd "$1" && exec /bin/sh -c "$2"' sh "$wd" "$1" </dev/null 9>&- || st=$?
  stages_distro_umount "$merged"
  return $st
}

unmount_all () {
  local m
  for m in "$merged" "$dir/debian-12.new"; do
    stages_distro_umount "$m"
    mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
  done
  return 0
}

# Mounts the layers so far over the base at $merged, with $1 as the upper
# (written) layer.
mount_layers () {
  mkdir -p "$merged" "$1/diff" "$1/work"
  mount -t overlay overlay -o "lowerdir=$lowers,upperdir=$1/diff,workdir=$1/work" "$merged" \
    || { say "cannot mount an overlay at $merged" >&2; return 1; }
}

# Runs step $1 (its layer made, or taken from the cache); extends $lowers.
step () {
  local i=$1 kw=${step_kw[$1]} arg=${step_arg[$1]} l st=0 start=$SECONDS w
  echo "STEP $((i + 1))/${#step_kw[@]}: $kw $arg"
  case "$kw" in
    FROM) key=$(echo "$key FROM" | sha256sum | cut -c1-16); return 0 ;;
    ENV)
      for w in $arg; do image_env+=("$w"); done
      key=$(echo "$key ENV $arg" | sha256sum | cut -c1-16)
      return 0 ;;
    WORKDIR) [[ "$arg" == /* ]] && wd=$arg || wd="${wd%/}/$arg" ;;
  esac
  if [ "$kw" = COPY ]; then
    # shellcheck disable=SC2086
    key=$(echo "$key COPY $arg $wd $(set -- $arg; ctx_digest "${@:1:$#-1}")" | sha256sum | cut -c1-16)
  else
    key=$(echo "$key $kw $arg" | sha256sum | cut -c1-16)
  fi
  l="$layers/$key"
  chain+=("$key")
  if [ -e "$l/done" ]; then
    echo "--> from the cache ($key)"
    lowers="$l/diff:$lowers"
    cached=$((cached + 1))
    return 0
  fi
  rm -rf "$l"
  mount_layers "$l" || return 1
  # shellcheck disable=SC2086
  case "$kw" in
    COPY) do_copy $arg || st=$? ;;
    WORKDIR) { root_path_plain "$wd" && mkdir -p "$merged$wd"; } || st=1 ;;
    RUN) root_sh "$arg" || st=$? ;;
  esac
  umount "$merged" 2>/dev/null || umount -l "$merged"
  if [ $st -ne 0 ]; then
    say "Containerfile:${step_line[$i]}: $kw failed (exit status $st)" >&2
    rm -rf "$l"
    return 1
  fi
  rm -rf "$l/work"
  touch "$l/done"
  lowers="$l/diff:$lowers"
  echo "--> $key ($((SECONDS - start)) s)"
}

# Removes the layers this build did not use.
prune () {
  local d keep k
  for d in "$layers"/*; do
    [ -d "$d" ] || continue
    keep=""
    for k in ${chain[@]+"${chain[@]}"}; do [ "$d" = "$layers/$k" ] && keep=1; done
    [ -n "$keep" ] || rm -rf "$d"
  done
}

chroot_check () {
  local i built="" st=0
  [ "$(id -u)" = 0 ] || { echo "container-check.sh: needs root (debootstrap, mount, chroot), or --engine=podman" >&2; exit 2; }
  [[ "$dir" =~ [:,[:space:]] ]] && { echo "container-check.sh: $dir: overlayfs takes no ':', ',' or spaces" >&2; exit 2; }
  cf_parse || { result fail "the Containerfile is read as an engine reads it"; result fail "the image runs a batch (not built)"; finish; }
  mkdir -p "$dir" "$layers"
  # one build at a time on this machine: the layers are shared
  exec 9> "$dir/lock"
  flock 9
  trap 'unmount_all' EXIT
  trap 'exit 130' INT TERM
  base_make || { result fail "debian:12 made with debootstrap"; result fail "the image runs a batch (not built)"; finish; }
  key=$(cat "$dir/debian-12.made")
  lowers=$base
  wd=/
  image_env=()
  chain=()
  cached=0
  built=1
  for i in "${!step_kw[@]}"; do
    step "$i" || { built=""; break; }
  done
  prune
  if [ -z "$built" ]; then
    result fail "the Containerfile builds"
    result fail "the image runs a batch (not built)"
    finish
  fi
  result ok "the Containerfile builds (${#step_kw[@]} steps, $cached layers from the cache)"
  # the image, run: a throwaway layer over the built ones
  rm -rf "$scratch"
  mount_layers "$scratch" || { result fail "the image runs a batch"; finish; }
  root_sh "$RUN_TEST" 300 || st=$?
  unmount_all
  rm -rf "$scratch"
  if [ $st -eq 0 ]; then
    result ok "the image runs a batch in $wd"
  else
    result fail "the image runs a batch in $wd (exit status $st)"
  fi
  finish
}

engine_check () {
  local tag=localhost/gst-stages:check
  # shellcheck disable=SC2206
  local args=(${STAGES_ENGINE_ARGS:-})
  command -v "$engine" >/dev/null || { say "no $engine here" >&2; result fail "the Containerfile builds"; result fail "the image runs a batch (not built)"; finish; }
  if ! "$engine" image inspect docker.io/library/debian:12 >/dev/null 2>&1 \
      && ! "$engine" pull docker.io/library/debian:12; then
    # No registry: the debian:12 that the chroot build uses, imported.
    [ "$(id -u)" = 0 ] || { say "cannot pull debian:12, and making it needs root" >&2; exit 2; }
    mkdir -p "$dir"
    exec 9> "$dir/lock"
    flock 9
    trap 'unmount_all' EXIT
    if ! base_make || ! tar -C "$base" -c . | "$engine" import - docker.io/library/debian:12 >/dev/null; then
      result fail "debian:12 imported into $engine"
      result fail "the image runs a batch (not built)"
      finish
    fi
    flock -u 9
  fi
  if ! "$engine" build ${args[@]+"${args[@]}"} -f Containerfile -t "$tag" .; then
    result fail "the Containerfile builds with $engine"
    result fail "the image runs a batch (not built)"
    finish
  fi
  result ok "the Containerfile builds with $engine"
  if timeout 300 "$engine" run --rm ${args[@]+"${args[@]}"} "$tag" /bin/sh -c "$RUN_TEST" </dev/null; then
    result ok "the image runs a batch ($engine run)"
  else
    result fail "the image runs a batch ($engine run)"
  fi
  finish
}

if [ -n "$engine" ]; then engine_check; else chroot_check; fi
