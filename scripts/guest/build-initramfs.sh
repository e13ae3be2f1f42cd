#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-initramfs.sh KVER OUT.cpio
#
# A tiny busybox initramfs with just the modules needed to reach the host
# root over virtio 9p. Rebuilt only when the kernel version, /init or this
# script change (their hash is kept next to the output).
set -euo pipefail

kver=$1 out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Wanted modules; modprobe resolves each one's dependencies in load order.
WANTED=(virtio_pci virtio_net 9pnet_virtio 9p overlay)

stamp="$out.stamp"
want_stamp=$(cat "$here/init" "$here/build-initramfs.sh" | sha256sum | cut -d' ' -f1)
want_stamp="$kver $want_stamp"
if [[ -r $out && -r $stamp && $(<"$stamp") == "$want_stamp" ]]; then
	exit 0
fi

# busybox-static installs a static /bin/busybox; nothing else is needed.
busybox=/bin/busybox
[[ -x $busybox ]] || { echo "build-initramfs: busybox-static missing" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,modules}
cp "$busybox" "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"

# "insmod /lib/modules/.../x.ko[.xz]" lines, dependencies first.
declare -A seen=()
for w in "${WANTED[@]}"; do
	while read -r verb path _; do
		[[ $verb == insmod ]] || continue      # skip "builtin x"
		name=$(basename "$path")
		name=${name%%.ko*}
		[[ -n ${seen[$name]:-} ]] && continue
		seen[$name]=1
		case $path in
		*.ko)     cp "$path" "$tmp/modules/$name.ko" ;;
		*.ko.xz)  xz -dc "$path" > "$tmp/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$path" > "$tmp/modules/$name.ko" ;;
		*.ko.gz)  gzip -dc "$path" > "$tmp/modules/$name.ko" ;;
		*) echo "build-initramfs: unknown module file $path" >&2; exit 1 ;;
		esac
		echo "$name" >> "$tmp/modules/order"
	done < <(modprobe -S "$kver" --show-depends "$w")
done

mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$out.new.$$"
mv "$out.new.$$" "$out"
echo "$want_stamp" > "$stamp"
echo "build-initramfs: $out for $kver ($(tr '\n' ' ' < "$tmp/modules/order"))"
