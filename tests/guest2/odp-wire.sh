#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-demand paging between two guests on a virtual wire, sroce on both
# ends. tests/guest/progs/odp_wire, first with guest A as the responder
# and then with guest B, so that each guest is requester and responder:
# RC SEND, WRITE, WRITE with immediate, READ, FETCH_ADD and CMP_SWAP, SENDs
# into an SRQ, UC SEND, WRITE and WRITE with immediate, UD SEND, all
# between ODP regions that were never touched before the transfer, every
# byte checked; and a WRITE into a munmapped page of an ODP region, which
# gives the remote access error. Then perftest's --odp across the wire
# (ib_write_bw, ib_read_bw and ib_send_bw, 64 KiB x 100, the server role
# alternating). Each guest's hw counter odp_faults must grow over the
# odp_wire runs and over the perftest runs: its own regions really are
# faulted in on demand.
#
# rdma_rxe has no ODP on our kernels: under --impl rxe the case only says
# so.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet
if [[ $SROCE_IMPL == rxe ]]; then
	log "rxe quirk: no ODP on this kernel's rdma_rxe"
	wire_done
	exit 0
fi

# faults_grew BEFORE WHAT: odp_faults is above BEFORE now.
faults_grew() {
	local n
	n=$(port_counter "$dev" odp_faults)
	((n > $1)) || fail "$2: $dev odp_faults stayed at $n"
	log "$2: $dev odp_faults +$((n - $1))"
}

f0=$(port_counter "$dev" odp_faults)
for server in A B; do
	pair_run "odp-wire-$server-responds" "$server" 120 \
		"$PROGS/odp_wire" -d "$dev" -x "$g4"
	grep -q '^odp_wire all ok' "$PAIR_OUT" ||
		{ cat "$PAIR_OUT"; fail "odp_wire ($PAIR_SIDE): not all ok"; }
	grep '^ok .*attempt' "$PAIR_OUT" | sed 's/^/  /'
done
faults_grew "$f0" "odp_wire"

f0=$(port_counter "$dev" odp_faults)
pair_bw odp-write-bw A 60 "$dev" "$g4" ib_write_bw 65536 100 --odp
pair_bw odp-read-bw B 60 "$dev" "$g4" ib_read_bw 65536 100 --odp
pair_bw odp-send-bw A 60 "$dev" "$g4" ib_send_bw 65536 100 --odp
faults_grew "$f0" "perftest --odp"

wire_done
