#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process killed in the middle of an RC stream. ib_write_bw / ib_read_bw
# / ib_send_bw run between the rdma_pair ends for long enough to be caught
# mid-transfer (-D: a timed run); one side is killed with SIGKILL while
# packets flow: the client (requester) of writes and sends, the server of
# reads (the responder, sending the read responses). Checked each time:
#  - the killed process is gone within seconds (its QPs, pinned MRs and
#    CQs are destroyed by uverbs while packets for them keep arriving);
#  - the survivor ends (the peer's QP is gone: its retries run out, or it
#    was the server waiting for the dead client's last message) and does
#    not hang, and is stopped if it keeps waiting;
#  - afterwards no user object is left: no QP but QP1, no MR, CQ, PD or
#    rdma_cm ID (`rdma res`), on both devices;
#  - a fresh run between the same devices works (nothing stuck);
#  - on sroce, one more round kills the writer while its zero-copy
#    packets wait in a queue (see hold_packets);
#  - the module unloads (every object was freed).
. "$(dirname "$0")/lib.sh"

load_sroce
rdma_pair 1500

# user_objects DEV: the user-space objects (and non-GSI QPs) left on DEV.
user_objects() {
	{
		rdma res show qp link "$1/1" 2>/dev/null | grep -v 'type GSI'
		rdma res show mr dev "$1" 2>/dev/null
		rdma res show cq dev "$1" 2>/dev/null | grep -v 'comm \[ib_core\]'
		rdma res show pd dev "$1" 2>/dev/null | grep -v 'comm \[ib_core\]'
	} | grep . || true
}

no_user_objects() { [[ -z $(user_objects "$1") ]]; }

# progressed FILE: the run has started moving data (perftest printed its
# table header: the QPs are connected and the timed loop began).
progressed() { grep -q '#bytes' "$1" 2>/dev/null; }

# kill_round NAME VICTIM TOOL ARGS...: TOOL between the pair for 30 s;
# VICTIM (server or client) is killed 2 s into the transfer.
kill_round() {
	local name=$1 victim=$2 tool=$3 port spid cpid vpid spid_rc=0
	shift 3
	local sout=$RESULTS/$name-server.txt cout=$RESULTS/$name-client.txt
	next_port port
	log "$name: $tool $*, killing the $victim mid-transfer"
	side_start spid "$sout" 60 "" "$tool" -d "$SDEV" -x "$SG" -F -p "$port" -D 30 "$@"
	wait_until 30 "$name: server listening" listening_or_gone "$spid" "$port"
	side_start cpid "$cout" 60 "$CNETNS" "$tool" -d "$CDEV" -x "$CG" -F -p "$port" \
		-D 30 "$@" "$SADDR"
	wait_until 30 "$name: transfer started" progressed "$cout"
	sleep 2
	if [[ $victim == server ]]; then vpid=$spid; else vpid=$cpid; fi
	kill -0 "$vpid" 2>/dev/null || { cat "$sout" "$cout"; fail "$name: $victim ended early"; }
	[[ -z ${HOLD_DEV:-} ]] || hold_packets "$name"
	# timeout's child is the perftest process: kill that one.
	pkill -KILL -P "$vpid" || fail "$name: no $victim process to kill"
	local t0=$SECONDS
	wait "$vpid" 2>/dev/null || true
	(((SECONDS - t0) <= 10)) || fail "$name: killed $victim took $((SECONDS - t0)) s to go"
	# The survivor: let it notice (retries run out after ~ 7 x 67 ms for
	# the client; the server may wait for ever), then stop it.
	local survivor=$cpid
	[[ $victim == server ]] || survivor=$spid
	t0=$SECONDS
	while kill -0 "$survivor" 2>/dev/null && ((SECONDS - t0 < 8)); do nap 0.2; done
	if kill -0 "$survivor" 2>/dev/null; then
		pkill -TERM -P "$survivor" || true
	fi
	wait "$survivor" 2>/dev/null || spid_rc=$?
	((spid_rc != 124)) || fail "$name: the survivor hung until its timeout"
	log "$name: survivor ended (status $spid_rc) $((SECONDS - t0)) s after the kill"
	wait_until 20 "$name: user objects gone on $SDEV" no_user_objects "$SDEV"
	wait_until 20 "$name: user objects gone on $CDEV" no_user_objects "$CDEV"
	[[ -z ${HOLD_DEV:-} ]] || release_packets "$name"
}

# With HOLD_DEV set ("veth0" or "peer veth1"), the victim's packets are
# held in a queue when it dies. The victim sends zero-copy (tx_zero_copy):
# its packets' payload is in its own registered pages, which its death
# unpins and frees while the packets wait. hold_packets: from now on
# HOLD_DEV delays what it sends by 1.5 s (netem); 0.3 s later the queue
# must hold packets. release_packets: once they have gone out and arrived
# at the survivor's device, which checks their ICRC (a page freed and
# reused under them would show as a bad ICRC, see rdma_pair_done), the
# queue goes.
hold_tc() { if [[ $HOLD_DEV == peer* ]]; then tc -n peer "$@"; else tc "$@"; fi; }
hold_packets() {
	local backlog
	hold_tc qdisc add dev "${HOLD_DEV##* }" root netem delay 1500ms limit 100000
	nap 0.3
	backlog=$(hold_tc -s qdisc show dev "${HOLD_DEV##* }" |
		awk '/backlog/ { sub(/p$/, "", $3); print $3; exit }')
	log "$1: $backlog packets held in the queue at the kill"
	((backlog > 0)) || fail "$1: no packet held in the queue at the kill"
}
release_packets() {
	nap 2
	hold_tc qdisc del dev "${HOLD_DEV##* }" root
}

# Each side killed while it sends data: the requester of writes and sends,
# the responder of reads (it sends the read responses).
kill_round write-client client ib_write_bw -s 65536
kill_round read-server server ib_read_bw -s 65536
kill_round send-client client ib_send_bw -s 4096

# The same while the victim's zero-copy packets wait in a queue (sroce:
# rxe copies, and has one device here). Read responses are always copied
# (net_tx.h), so only the writer's round.
if [[ $SROCE_IMPL != rxe ]]; then
	zc=$(port_counter "$CDEV" tx_zero_copy)
	# -u 22: a 17 s ACK timeout, so that the 1.5 s hold runs out no retry
	# (probes resend meanwhile; they are not retries).
	HOLD_DEV="peer veth1" kill_round write-client-held client ib_write_bw -s 65536 -u 22
	(($(port_counter "$CDEV" tx_zero_copy) > zc)) ||
		fail "write-client-held: the client sent nothing zero-copy"
fi

# Nothing is stuck: a normal run between the same devices.
local_perftest after-kills 65536 ib_write_bw -s 65536 -n 200
show_counters "$SDEV" "$CDEV"
rdma_pair_done
