#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel version the module is built for and the guest boots:
# the newest installed /usr/src/linux-headers-*-amd64 that has a matching
# /boot/vmlinuz-* (the headers and the image must be the same build).
# $KVER, when set, wins (but must still have both pieces).
set -euo pipefail

has_both() {
	[[ -d /usr/src/linux-headers-$1 && -r /boot/vmlinuz-$1 && -d /lib/modules/$1 ]]
}

if [[ -n ${KVER:-} ]]; then
	has_both "$KVER" || {
		echo "kver.sh: KVER=$KVER lacks headers, /boot/vmlinuz or /lib/modules" >&2
		exit 1
	}
	echo "$KVER"
	exit 0
fi

best=
# sort -V orders 6.1.0-9 before 6.1.0-57; take the last one that qualifies.
while read -r dir; do
	v=${dir#/usr/src/linux-headers-}
	has_both "$v" && best=$v
done < <(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)

if [[ -z $best ]]; then
	echo "kver.sh: no linux-headers-*-amd64 with a matching /boot/vmlinuz-*" >&2
	echo "kver.sh: run scripts/install-deps.sh" >&2
	exit 1
fi
echo "$best"
