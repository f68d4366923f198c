# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by scripts/test.sh: the suite on another Debian release's
# GStreamer (trixie: Debian 13, GStreamer 1.26; sid: Debian unstable, 1.28),
# in a root made with debootstrap from the archive this machine's apt uses,
# entered with chroot.
#
# The root is made once and kept under $STAGES_ROOTS (default
# /var/cache/gst-stages/roots/NAME), with the packages of scripts/deps.sh
# installed inside; a later run installs what is missing and, once a week,
# upgrades the root. The source is copied in fresh each time (tracked and
# untracked, not ignored files: what a clean clone plus the working tree's
# changes holds) and built from scratch inside the root.

STAGES_ROOTS=${STAGES_ROOTS:-/var/cache/gst-stages/roots}

stages_distro_mirror () {
  # The archive apt uses here (deb822 or one-line sources).
  local m
  m=$(grep -hoE '^URIs: *http[^ ]*/debian/?$|^deb +http[^ ]*/debian/? ' \
        /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
      | head -n 1 | grep -oE 'http[^ ]*')
  echo "${m:-http://deb.debian.org/debian}"
}

# The root's mounts: /proc, and a devpts instance of its own (the progress
# tests need a pseudo-terminal); /dev itself is the root's own tree made by
# debootstrap, never the host's.
stages_distro_mount () {
  local root=$1
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  mkdir -p "$root/dev/pts"
  mountpoint -q "$root/dev/pts" \
    || mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
  [ -e "$root/dev/ptmx" ] || ln -sf pts/ptmx "$root/dev/ptmx"
  mkdir -p "$root/dev/shm"
  mountpoint -q "$root/dev/shm" || mount -t tmpfs shm "$root/dev/shm"
}

stages_distro_umount () {
  local root=$1 m
  for m in dev/shm dev/pts proc; do
    mountpoint -q "$root/$m" && umount -l "$root/$m"
  done
  return 0
}

# Makes (or refreshes) the root for release $1 at $STAGES_ROOTS/$1 and
# mounts what it needs. Fails when either step fails.
# Makes a minimal root of release $1 at $2 with debootstrap, unless one is
# there (made in $2.tmp, moved into place once complete).
stages_distro_debootstrap () {
  local name=$1 root=$2 mirror
  [ -x "$root/usr/bin/apt-get" ] && return 0
  mirror=$(stages_distro_mirror)
  stages_ensure_packages debootstrap || return 1
  rm -rf "$root.tmp"
  mkdir -p "$(dirname "$root")"
  echo "gst-stages: debootstrap $name from $mirror into $root" >&2
  debootstrap --variant=minbase "$name" "$root.tmp" "$mirror" >&2 \
    || { echo "gst-stages: debootstrap $name failed" >&2; return 1; }
  mv "$root.tmp" "$root"
}

stages_distro_root () {
  local name=$1 root="$STAGES_ROOTS/$1" pkgs stamp
  stages_distro_debootstrap "$name" "$root" || return 1
  # The packages of scripts/deps.sh, as test.sh installs them here (the
  # sanitizer and benchmark lists are not needed inside).
  pkgs="$STAGES_BUILD_PACKAGES $STAGES_TEST_PACKAGES git"
  # sid's Release file is often past its Valid-Until on a pinned mirror;
  # set in the root, so that test.sh's own apt-get inside works too.
  [ "$name" = sid ] && echo 'Acquire::Check-Valid-Until "false";' \
    > "$root/etc/apt/apt.conf.d/99gst-stages-valid-until"
  stages_distro_mount "$root"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  # Installed when missing, and upgraded once a week (the stamp's age).
  stamp="$root/var/lib/gst-stages-refreshed"
  if [ -n "$(chroot "$root" bash -c ". /dev/stdin; stages_missing_packages $pkgs" < scripts/deps.sh)" ] \
      || [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mtime +6)" ]; then
    echo "gst-stages: installing and upgrading the packages of scripts/deps.sh in $root" >&2
    chroot "$root" env DEBIAN_FRONTEND=noninteractive sh -c \
      "apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs && apt-get upgrade -y -qq && apt-get clean" >&2 \
      || { echo "gst-stages: apt-get in $root failed" >&2; return 1; }
    touch "$stamp"
  fi
}

# Runs scripts/test.sh (with the given arguments) on a fresh copy of this
# tree inside the root of release $1.
stages_distro_test () {
  local name=$1 root="$STAGES_ROOTS/$1" status=0 ver src
  shift
  if stages_distro_root "$name"; then
    ver=$(chroot "$root" dpkg-query -W -f='${Version}' libgstreamer1.0-0)
    echo "gst-stages: $name root: GStreamer $ver"
    # A folder of its own for each checkout: two checkouts (worktrees)
    # testing in one root at once do not delete each other's tree.
    src="/src/gst-stages-$(printf %s "$PWD" | md5sum | cut -c1-8)"
    rm -rf "$root$src"
    mkdir -p "$root$src"
    git ls-files -co --exclude-standard -z | xargs -0 tar -cf - \
      | tar -xf - -C "$root$src"
    chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root LANG=C.UTF-8 CI="${CI:-}" TERM=dumb \
      bash -c 'cd "$0" && bash scripts/test.sh "$@"' "$src" "$@" || status=$?
  else
    status=1
  fi
  stages_distro_umount "$root"
  return $status
}
