#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-test.sh install KVER... | remove
#
# install: what a user does with DKMS (README.md, "Install"), on this
# host: the tree's sources go to /usr/src/sroce-VERSION, "dkms add", then
# "dkms build" for every KVER given (each must have its headers) and
# "dkms install" for the first. Checks that dkms.conf's version is the
# module's, that each built module has that version and the kernel's
# vermagic, and that the installed one is where modprobe looks. The guest
# case guest/dkms then loads it by name in the first KVER's guest.
# remove: "dkms remove" of this version for every kernel.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "dkms-test: $*" >&2; exit 1; }

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$REPO/dkms.conf")
lim=$REPO/drivers/infiniband/sw/sroce/limits.h
modver=$(for f in MAJOR MINOR SUB; do
		sed -n "s/^#define SROCE_FW_$f[[:space:]]*\([0-9]*\)$/\1/p" "$lim"
	 done | paste -sd.)
[[ $ver == "$modver" ]] || die "dkms.conf says $ver, limits.h says $modver"

case ${1:-} in
remove)
	command -v dkms >/dev/null || exit 0
	dkms remove -m sroce -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/sroce-$ver"
	exit 0 ;;
install)
	shift ;;
*)
	sed -n '4,14s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
(($#)) || die "no kernel given"

"$REPO/scripts/install-deps.sh" dkms >/dev/null || die "cannot install dkms"

# A fresh copy of the sources, as a user's unpacked release would be.
dkms remove -m sroce -v "$ver" --all >/dev/null 2>&1 || true
src=/usr/src/sroce-$ver
rm -rf "$src"
mkdir -p "$src"
(cd "$REPO" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude=modules.order \
	--exclude=Module.symvers Makefile Kconfig dkms.conf drivers include) |
	tar -xf - -C "$src"
dkms add -m sroce -v "$ver"

for k in "$@"; do
	echo "dkms-test: building for $k"
	dkms build -m sroce -v "$ver" -k "$k" || die "dkms build for $k failed"
	ko=$(ls "/var/lib/dkms/sroce/$ver/$k/"*/module/sroce.ko* 2>/dev/null | head -n 1)
	[[ -n $ko ]] || die "dkms built no sroce.ko for $k"
	[[ $(modinfo -F version "$ko") == "$ver" ]] || die "$ko: version $(modinfo -F version "$ko")"
	[[ $(modinfo -F vermagic "$ko") == "$k "* ]] || die "$ko: vermagic $(modinfo -F vermagic "$ko")"
done

dkms install -m sroce -v "$ver" -k "$1" || die "dkms install for $1 failed"
path=$(modinfo -k "$1" -n sroce) || die "modinfo -k $1 sroce: not found after dkms install"
[[ $path == /lib/modules/$1/updates/dkms/sroce.ko* ]] || die "modprobe would load $path"
echo "dkms-test: sroce $ver built for $*, installed for $1: $path"
