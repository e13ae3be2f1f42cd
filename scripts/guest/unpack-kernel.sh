#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# unpack-kernel.sh BZIMAGE OUT
#
# Prints the kernel image a guest should boot: OUT, the uncompressed
# vmlinux inside BZIMAGE, when it can be unpacked and carries a PVH entry
# note (CONFIG_PVH, which Debian's kernels have), else BZIMAGE itself.
#
# Why: under TCG the bzImage's own decompressor spends about 7 s of every
# boot unpacking the kernel (xz on 6.1, zstd on 6.12), more than a third
# of a bare boot; make check boots ~90 guests. QEMU loads a PVH ELF
# straight into guest memory. OUT is rebuilt only when BZIMAGE is newer.
set -euo pipefail

bzimage=$1 out=$2

# has_pvh_note FILE: an ELF with Xen's PHYS32_ENTRY note (type 18), the
# entry point QEMU's -kernel uses for a vmlinux.
has_pvh_note() {
	local notes
	[[ $(head -c 4 "$1" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] || return 1
	notes=$(LC_ALL=C readelf -n "$1" 2>/dev/null) || return 1
	grep -q -E 'Xen[[:space:]]+0x[0-9a-f]+[[:space:]]+(XEN_ELFNOTE_PHYS32_ENTRY|Unknown note type: \(0x0*12\))' \
		<<<"$notes"
}

if [[ -s $out && $out -nt $bzimage ]] && has_pvh_note "$out"; then
	echo "$out"
	exit 0
fi

# offset_of HEX-MAGIC: byte offset of the first compressed payload.
offset_of() {
	local hits
	hits=$(LC_ALL=C grep -m 1 -obUaP "$1" "$bzimage" 2>/dev/null | tr -d '\0') ||
		return 0
	echo "${hits%%:*}"
}

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
rm -f "$tmp"
trap 'rm -f "$tmp"' EXIT
# The decompressors stop with an error at the bytes after the payload
# (the bzImage's trailer); what they wrote before that is the vmlinux,
# which the note check below verifies.
if off=$(offset_of '\xfd7zXZ\x00') && [[ -n $off ]]; then
	tail -c +"$((off + 1))" "$bzimage" | xz -dc --single-stream > "$tmp" 2>/dev/null || true
elif off=$(offset_of '\x28\xb5\x2f\xfd') && [[ -n $off ]]; then
	tail -c +"$((off + 1))" "$bzimage" | zstd -dcq > "$tmp" 2>/dev/null || true
elif off=$(offset_of '\x1f\x8b\x08') && [[ -n $off ]]; then
	tail -c +"$((off + 1))" "$bzimage" | gzip -dc > "$tmp" 2>/dev/null || true
fi

if [[ -s $tmp ]] && has_pvh_note "$tmp"; then
	mv "$tmp" "$out"
	echo "$out"
else
	echo "unpack-kernel: booting $bzimage as it is (no PVH vmlinux inside)" >&2
	echo "$bzimage"
fi
