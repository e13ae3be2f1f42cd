#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-demand paging memory regions (tests/guest/progs/odp.c), checked byte
# by byte in one process, with A (every requester) on $SDEV and B (every
# responder) on $CDEV:
#  - odp_caps: ODP and implicit ODP; RC SEND, RECV, WRITE, READ,
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
#    PROT_READ mapping (IBV_WC_REM_ACCESS_ERR); WRITEs into and from
#    memfd_secret() memory (remote access and local protection errors,
#    the memory unchanged; on 6.12, whose secret memory is on by default);
#  - invalidation while traffic runs: for 2.5 s another thread changes
#    A's source under RC WRITEs and SENDs (mmap(MAP_FIXED) of another
#    file, copy-on-write, fork() with the child writing its copy,
#    MADV_DONTNEED): every packet arrives whole, of a generation of the
#    source no older than the last change done before the post, never
#    the child's bytes or foreign memory; then B's target is dropped by
#    MADV_DONTNEED every 1 ms, then every 100 ms (1.5 s each) under WRITEs
#    and SENDs, which all complete successfully (one starved by the 1 ms
#    drops must complete once they stop);
#  - a type 2 window bound to a never-touched ODP MR: WRITE, READ and
#    FETCH_ADD through it, again after MADV_DONTNEED, bounds enforced;
#  - prefetch (advise_mr, synchronous and not): the prefetched pages, and
#    only those, come in (mincore), and a WRITE between prefetched
#    buffers faults nothing at either end; NO_FAULT maps only what the
#    process has present; bad SGEs are refused (EFAULT, EOPNOTSUPP);
#    dereg under a 64 MiB asynchronous prefetch does not wait for it;
#  - implicit ODP (NULL, SIZE_MAX) at both ends: 128 WRITEs and READs of
#    64 bytes at random places of a never-touched 1 GiB land, and make
#    128 children of 2 MiB in B's region (rdma resource show mr -dd), no
#    more; WRITEs to a munmapped and to a kernel address: remote access
#    errors, no child; children stop at the device's bound (EFAULT),
#    which then refuses an explicit region, until dereg;
#  - the device's bound: 4 x MemTotal registered on demand, then ENOMEM;
#    a deregistration gives its pages back.
# Afterwards each device's hw counter odp_faults (page-fault requests
# served) must be above 0: B faults in the targets and receive buffers,
# A its never-touched sources, READ sinks and atomic results.
# sroce only: perftest with --odp (ib_write_bw, ib_read_bw, ib_send_bw,
# 64 KiB x 200): each side exits 0 and prints its result row, and each
# device's odp_faults grows over each run (the buffers really are ODP).
# Then teardown under ib_write_bw --odp: both processes killed (-9)
# mid-transfer, their QPs go; then veth0 deleted mid-transfer, and while
# another process has 512 MiB of asynchronous prefetch under way (odp -P,
# which then exits cleanly, and says how much of it came in): both
# devices go, and the module unloads; the kernel log stays clean.
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

	# odp_perftest NAME TOOL: TOOL --odp, 64 KiB x 200; both devices
	# fault pages in for it.
	odp_perftest() {
		local name=$1 tool=$2 d before=() n i=0
		for d in "$SDEV" "$CDEV"; do
			before+=("$(port_counter "$d" odp_faults)")
		done
		local_perftest "$name" 65536 "$tool" -s 65536 -n 200 --odp
		for d in "$SDEV" "$CDEV"; do
			n=$(port_counter "$d" odp_faults)
			((n > before[i])) ||
				fail "$name: $d odp_faults stayed at $n: no ODP region used"
			log "$name: $d odp_faults +$((n - before[i]))"
			i=$((i + 1))
		done
	}
	TOOL_TIMEOUT=60
	odp_perftest odp_write_bw ib_write_bw
	odp_perftest odp_read_bw ib_read_bw
	odp_perftest odp_send_bw ib_send_bw

	# odp_bg NAME: ib_write_bw --odp, 64 KiB, for 60 s, in the
	# background (server on $SDEV, client on $CDEV); returns once
	# $SDEV took 2000 packets more than before.
	odp_bg() {
		local port spid cpid n0 end
		next_port port
		n0=$(port_counter "$SDEV" rx_packets)
		side_start spid "$RESULTS/$1-server.txt" 90 "" ib_write_bw \
			-d "$SDEV" -x "$SG" -p "$port" -F --odp -s 65536 -D 60
		wait_until 30 "$1: the server to listen" listening_or_gone "$spid" "$port"
		side_start cpid "$RESULTS/$1-client.txt" 90 "$CNETNS" ib_write_bw \
			-d "$CDEV" -x "$CG" -p "$port" -F --odp -s 65536 -D 60 "$SADDR"
		BG="$spid $cpid"
		end=$((SECONDS + 30))
		until (($(port_counter "$SDEV" rx_packets) > n0 + 2000)); do
			((SECONDS < end)) || { cat "$RESULTS/$1"-*.txt; fail "$1: no traffic"; }
			nap 0.2
		done
	}
	# odp_bg_kill: both perftest processes killed (-9), and reaped.
	odp_bg_kill() {
		local p
		pkill -9 -x ib_write_bw || true
		for p in $BG; do wait "$p" 2>/dev/null || true; done
	}

	# Teardown with ODP regions under traffic (the harness checks the
	# kernel log): both processes killed mid-transfer, their QPs and
	# regions go; then the netdev deleted under a transfer, which takes
	# both devices (veth0 and veth1 are one pair) and then the module.
	log "odp teardown: ib_write_bw --odp killed mid-transfer"
	odp_bg odp_killed
	odp_bg_kill
	for d in "$SDEV" "$CDEV"; do
		wait_until 20 "$d's RC QPs to go with their process" no_rc_qp "$d"
	done
	log "odp teardown: veth0 deleted under ib_write_bw --odp and asynchronous prefetches"
	odp_bg odp_netdev
	# odp -P: 512 MiB of asynchronous PREFETCH_WRITE on $SDEV; once an
	# eighth is in, it says so and waits for a line on its stdin (the
	# fifo), then says how much came in.
	pout=$RESULTS/odp-prefetch.txt pfifo=/tmp/odp-prefetch.in
	mkfifo "$pfifo"
	exec {pin}<>"$pfifo"
	run_timeout 120 "$PROGS/odp" -P "$SDEV" "$SG" "$CDEV" "$CG" <"$pfifo" {pin}>&- >"$pout" 2>&1 &
	ppid=$!
	queued_or_gone() { grep -q '^odp all ok' "$pout" || ! kill -0 "$ppid" 2>/dev/null; }
	wait_until 30 "the prefetches to be queued" queued_or_gone
	grep -q '^odp all ok' "$pout" || { cat "$pout"; fail "odp -P: no 'odp all ok'"; }
	grep '^ok' "$pout"
	ip link del veth0
	for d in "$SDEV" "$CDEV"; do
		wait_until 30 "$d to go with its netdev" gone "$d"
	done
	echo >&"$pin"
	exec {pin}>&-
	rm -f "$pfifo"
	prc=0
	wait "$ppid" || prc=$?
	((prc == 0)) || { cat "$pout"; fail "odp -P exited with status $prc after its device went"; }
	pend=$(grep '^in at the end' "$pout") || { cat "$pout"; fail "odp -P: no final count"; }
	# Not asserted: how far the prefetches got before the devices went
	# is the scheduler's (80192 of 131072 pages on 6.1; all of them on
	# the debug kernel, whose device removal is slower still).
	under="the devices went under the prefetches"
	[[ $pend =~ ^in\ at\ the\ end:\ ([0-9]+)\ of\ ([0-9]+)\ pages$ &&
	   ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] &&
		under="all were in before the devices went"
	log "odp -P: $pend ($under)"
	odp_bg_kill
	unload_sroce
	ip netns del peer
	log "ok"
	exit 0
fi

rdma_pair_done
