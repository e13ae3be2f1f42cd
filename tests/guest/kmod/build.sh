#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh [KDIR]: build the guest self-test modules on the host into
# build/guest/kmod/<KVER>/ (building them inside the emulated guest takes
# minutes), each from a scratch copy of its sources so that the driver's
# own objects are left alone, and each only when older than its sources:
#
#  - sroce_cq_selftest.ko: tests/guest/kmod/cq_selftest.c linked with the
#    driver's ring_mem.c, queue.c, mmap.c and verbs_cq.c (white box);
#  - kverbs_selftest.ko: tests/guest/kmod/kverbs_selftest.c, which uses
#    only the RDMA core's exported API (black box, sroce or rdma_rxe).
#
# A module that fails to build does not stop the other; the exit status
# is non-zero if any failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KVER=$("$REPO/scripts/kver.sh")
KDIR=${1:-/lib/modules/$KVER/build}
src=$REPO/drivers/infiniband/sw/sroce
kmod=$REPO/tests/guest/kmod
# One directory per kernel: the guest loads the one of the kernel it runs.
out=$REPO/build/guest/kmod/$KVER
mkdir -p "$out"

# fresh KO FILE...: KO exists and is newer than every FILE.
fresh() {
	local ko=$1 f
	shift
	for f in "$@"; do
		[[ -e $ko && $ko -nt $f ]] || return 1
	done
}

# build NAME MAKE_VARS FILE...: NAME.ko from a scratch directory holding
# the FILEs (Kbuild among them). The scratch directory is private and the
# module is renamed into place, so that two runners building at once (or a
# guest loading the module meanwhile) never see half a build.
build() {
	local name=$1 vars=$2 scratch status=0
	shift 2
	scratch=$(mktemp -d "$out/$name.build.XXXXXX")
	cp "$@" "$scratch/"
	# shellcheck disable=SC2086
	if make -s -C "$KDIR" M="$scratch" $vars modules; then
		mv -f "$scratch/$name.ko" "$out/$name.ko"
	else
		status=1
	fi
	rm -rf "$scratch"
	return "$status"
}

rc=0
cq_srcs=("$kmod/Kbuild" "$kmod/cq_selftest.c" "$src/ring_mem.c" "$src/queue.c"
	 "$src/mmap.c" "$src/verbs_cq.c")
if ! fresh "$out/sroce_cq_selftest.ko" "$kmod/Kbuild" "$kmod/cq_selftest.c" "$src"/*.[ch]; then
	build sroce_cq_selftest "SROCE_SRC=$src SROCE_INC=$REPO/include" "${cq_srcs[@]}" || {
		echo "build.sh: sroce_cq_selftest.ko failed to build" >&2
		rc=1
	}
fi
kv_srcs=("$kmod/Kbuild" "$kmod/kverbs_selftest.c")
if ! fresh "$out/kverbs_selftest.ko" "${kv_srcs[@]}"; then
	build kverbs_selftest KVERBS=1 "${kv_srcs[@]}" || {
		echo "build.sh: kverbs_selftest.ko failed to build" >&2
		rc=1
	}
fi
exit "$rc"
