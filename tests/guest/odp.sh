#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-demand paging memory regions (tests/guest/progs/odp.c), checked byte
# by byte in one process, with A (every requester) on $SDEV and B (every
# responder) on $CDEV:
#  - odp_caps: ODP without implicit ODP; RC SEND, RECV, WRITE, READ,
#    ATOMIC, SRQ_RECV; UC SEND, RECV, WRITE, SRQ_RECV; UD SEND, RECV,
#    SRQ_RECV;
#  - RC SEND, WRITE, WRITE with immediate, READ, FETCH_ADD, CMP_SWAP and
#    SRQ receives between buffers the process never touched (fresh
#    anonymous memory, memfds filled by write(2)): they simply complete;
#  - UC SEND and WRITE, UD SEND into never-touched buffers: dropped while
#    the fault is served, so sent again until they arrive (the attempts
#    are reported); from a never-touched source into present pages they
#    arrive at once;
#  - invalidation between transfers: MADV_DONTNEED of a target, munmap
#    and MAP_FIXED of other files at both ends, fork() with the child
#    writing its copy of the source;
#  - 64 WRITEs of 64 KiB into a never-touched 4 MiB target in one post;
#  - errors: remote WRITE, READ and atomics into a munmapped or never
#    mapped part of an MR (IBV_WC_REM_ACCESS_ERR), local SEND and WRITE
#    gathered from one (IBV_WC_LOC_PROT_ERR), WRITE into an MR over a
#    PROT_READ mapping (IBV_WC_REM_ACCESS_ERR).
# Afterwards each device's hw counter odp_faults (page-fault requests
# served) must be above 0: B faults in the targets and receive buffers,
# A its never-touched sources, READ sinks and atomic results.
# Topology: rdma_pair (sroce0 on veth0 here, sroce1 on veth1 in namespace
# "peer"). On rxe (rxe0 for both sides), which has no ODP on our kernels,
# odp -r only checks that it says so and refuses an ODP registration
# ("rxe quirk: no ODP ...").
. "$(dirname "$0")/lib.sh"

load_sroce
rdma_pair 1500

quirks=()
[[ $SROCE_IMPL == rxe ]] && quirks=(-r)
run_prog odp 180 odp "${quirks[@]}" "$SDEV" "$SG" "$CDEV" "$CG"

if [[ $SROCE_IMPL == sroce ]]; then
	for d in "$SDEV" "$CDEV"; do
		n=$(port_counter "$d" odp_faults 2>/dev/null) ||
			fail "$d: no hw counter odp_faults"
		log "$d odp_faults=$n"
		assert_match "$n" '^[0-9]+$' "$d odp_faults"
		((n > 0)) || fail "$d: odp_faults is $n after the first-touch transfers"
	done
	log "counters: $SDEV: $(dev_counters "$SDEV"); $CDEV: $(dev_counters "$CDEV")"
fi

rdma_pair_done
