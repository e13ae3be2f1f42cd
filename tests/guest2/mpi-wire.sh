#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI (stock Debian 4.1) across two guests on a virtual wire, one
# rank per guest, as a user runs it: guest B runs an ssh daemon (keys made
# here, nothing of the host's), guest A runs `mpirun` with the UCX PML and
# UCX one-sided component forced, UCX limited to sroce's device and to
# verbs transports (rc_verbs for data, ud_verbs only to wire up, self for
# a rank's messages to itself: no TCP, no shared memory), and
# tests/guest/progs/mpi_verify, which checks every byte of point-to-point
# messages from 1 B to 4 MiB, nonblocking ones in flight together, an
# allreduce and one-sided puts and gets (fence and passive lock).
#
# Proof that the data went over sroce: UCX's own log (UCX_LOG_LEVEL=info)
# names rc_verbs on $dev:1 for the endpoints of both ranks, and both
# devices received at least as many packets as the messages need at their
# RoCE MTU (1024 bytes on this 1500-byte wire).
#
# Open MPI 4.1 enables its UCX components only for devices whose names
# match pml_ucx_devices (default "mlx*": Mellanox hardware); "any" is the
# documented setting for every other device, rdma_rxe included.
#
# rdma_rxe: as in guest2/ucx-wire, its wc.sl is 0, so UCX takes its IPv4
# GIDs for IPv6 ones: UCX uses the IPv6 GIDs there.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
# Wire: unix (mpirun's own start-up traffic is many small TCP exchanges)
. "$(dirname "$0")/../guest/lib.sh"
. "$(dirname "$0")/../guest/lib-mpi.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
g6=$(wait_roce_gid 10 "$dev" "$MY_IP6") || fail "no RoCE v2 GID for $MY_IP6 on $dev"
wire_meet
gid=$g4
[[ $SROCE_IMPL == rxe ]] && { gid=$g6; log "rxe quirk: wc.sl 0, UCX on IPv6 GIDs"; }
rx_ctr=rx_packets
[[ $SROCE_IMPL == rxe ]] && rx_ctr=rcvd_pkts
rx0=$(port_counter "$dev" "$rx_ctr")

if [[ $ROLE == B ]]; then
	mpi_peer_up
	wait_peer mpi-done 400
	mpi_peer_down
else
	mpi_launcher_up
	t0=$SECONDS
	mpi_run mpi-verify 300 ucx
	log "mpi-verify: $((SECONDS - t0))s"
	grep '^ok ' "$MPI_OUT"
	grep -q '^mpi_verify all ok$' "$MPI_OUT" ||
		{ cat "$MPI_OUT"; fail "mpi_verify: not all ok"; }
	# One rank in each guest.
	grep -qx "rank 0 of 2 on $(hostname)" "$MPI_OUT" || fail "rank 0 did not run here"
	grep -qx "rank 1 of 2 on $MPI_PEER_HOST" "$MPI_OUT" || fail "rank 1 did not run on $MPI_PEER_HOST"
	# UCX's endpoint configurations, printed by each rank with its host
	# name: rc_verbs on our device carries the tagged messages and the
	# one-sided operations in both guests; no TCP or shared memory.
	for h in "$(hostname)" "$MPI_PEER_HOST"; do
		for what in tag rma; do
			grep -qE "\[$h:.*ep_cfg\[[0-9]+\]: $what\(.*rc_verbs/$dev:1" "$MPI_OUT" || {
				grep ep_cfg "$MPI_OUT"
				fail "$h: no UCX $what endpoint over rc_verbs/$dev:1"
			}
		done
	done
	assert_no_match "$(grep -E 'ep_cfg' "$MPI_OUT")" 'tcp|posix|sysv|cma' "UCX transports"
	signal mpi-done
fi

# p2p alone is more than 2 x 6.3 MiB each way: 12000 packets of 1 KiB.
rx=$(($(port_counter "$dev" "$rx_ctr") - rx0))
log "$dev: $rx packets received during the job"
((rx >= 12000)) || fail "$dev received only $rx packets: the data did not go over it"
wire_done
