#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh [KDIR]: build the guest self-test modules on the host into
# build/guest/kmod/ (building them inside the emulated guest takes
# minutes). sroce_cq_selftest.ko links tests/guest/kmod/cq_selftest.c with
# the driver's queue.c, mmap.c and verbs_cq.c, compiled from a scratch
# copy so that the driver's own objects are left alone. Up-to-date modules
# are not rebuilt.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KDIR=${1:-/lib/modules/$("$REPO/scripts/kver.sh")/build}
src=$REPO/drivers/infiniband/sw/sroce
kmod=$REPO/tests/guest/kmod
out=$REPO/build/guest/kmod
ko=$out/sroce_cq_selftest.ko

fresh=1
for f in "$kmod/Kbuild" "$kmod/cq_selftest.c" "$src"/*.[ch]; do
	[[ -e $ko && $ko -nt $f ]] || { fresh=0; break; }
done
((fresh)) && exit 0

scratch=$out/cq_selftest.build
rm -rf "$scratch"
mkdir -p "$scratch"
cp "$kmod/Kbuild" "$kmod/cq_selftest.c" "$src/queue.c" "$src/mmap.c" \
	"$src/verbs_cq.c" "$scratch/"
make -s -C "$KDIR" M="$scratch" SROCE_SRC="$src" modules
cp "$scratch/sroce_cq_selftest.ko" "$ko"
