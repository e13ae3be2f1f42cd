#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Devices go away while data flows through them (teardown-busy.sh has
# them idle): perftest runs between the rdma_pair ends (lib.sh) and, two
# seconds into the transfer, in turn
#  - rdma link delete of the client's device (ib_write_bw: its requester);
#  - rdma link delete of the server's device (ib_read_bw: its responder,
#    sending the read responses);
#  - module unload (ib_send_bw, both devices);
#  - the netdev deleted (ib_write_bw, both devices: one veth pair).
# Each removal returns at once, the device goes, the perftest processes
# either end by themselves or die when killed (none is stuck in the
# kernel), the device can be added back and moves data, and at the end
# the module unloads. This is the teardown under load that use-after-free
# and lock-order bugs live in: make check-debug runs it on KASAN and
# lockdep. sroce-only: rxe waits for its users to go (no disassociate).
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case (rxe waits for the process)"; exit 0; }

load_sroce
rdma_pair 1500

# progressed FILE: perftest printed its table header (connected, moving).
progressed() { grep -q '#bytes' "$1" 2>/dev/null; }

# load_start NAME TOOL ARGS...: TOOL's server on SDEV and client on CDEV
# for 30 s (-D); returns once the transfer has run for 2 s. LOAD_PIDS
# are their timeout processes.
load_start() {
	local name=$1 tool=$2 port spid cpid
	shift 2
	next_port port
	local sout=$RESULTS/$name-server.txt cout=$RESULTS/$name-client.txt
	log "$name: $tool $* between $SDEV and $CDEV"
	timeout -k 5 90 stdbuf -oL "$tool" -d "$SDEV" -x "$SG" -F -p "$port" -D 30 "$@" \
		>"$sout" 2>&1 &
	spid=$!
	wait_until 30 "$name: server listening" listening_or_gone "$spid" "$port"
	"${CNS[@]}" timeout -k 5 90 stdbuf -oL "$tool" -d "$CDEV" -x "$CG" -F -p "$port" \
		-D 30 "$@" "$SADDR" >"$cout" 2>&1 &
	cpid=$!
	wait_until 30 "$name: transfer started" progressed "$cout"
	nap 2
	if ! kill -0 "$spid" 2>/dev/null || ! kill -0 "$cpid" 2>/dev/null; then
		cat "$sout" "$cout"
		fail "$name: perftest ended before the removal"
	fi
	LOAD_PIDS="$spid $cpid"
}

# load_end NAME: the perftest ends, given 40 s to end by themselves (the
# timed run is over by then), then killed; a killed one must be gone
# within 10 s (a process stuck in the driver is not).
load_end() {
	local name=$1 p t0=$SECONDS
	for p in $LOAD_PIDS; do
		while kill -0 "$p" 2>/dev/null && ((SECONDS - t0 < 40)); do nap 0.2; done
		if kill -0 "$p" 2>/dev/null; then
			# timeout's child is the perftest process.
			pkill -KILL -P "$p" || true
			local t1=$SECONDS
			wait "$p" 2>/dev/null || true
			(((SECONDS - t1) <= 10)) || fail "$name: a killed perftest took $((SECONDS - t1)) s to go"
		else
			wait "$p" 2>/dev/null || true
		fi
	done
	log "$name: perftest gone $((SECONDS - t0)) s after the removal"
}

# remove NAME WHAT CMD...: CMD (the removal) must return within 30 s.
remove() {
	local name=$1 what=$2 t0=$SECONDS
	shift 2
	run_timeout 30 "$@" || fail "$name: $what failed (or hung)"
	log "$name: $what returned in $((SECONDS - t0)) s"
}

# readd_client, readd_server: the device back on its netdev, GID index anew.
readd_client() {
	run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
		fail "rdma link add sroce1 in namespace peer"
	wait_until 10 "sroce1 back" test -e /sys/class/infiniband/sroce1
	CG=$(wait_roce_gid 10 "$CDEV" "$CADDR") || fail "no RoCE v2 GID for $CADDR on $CDEV"
}
readd_server() {
	link_add sroce0 veth0
	SG=$(wait_roce_gid 10 "$SDEV" "$SADDR") || fail "no RoCE v2 GID for $SADDR on $SDEV"
}

# still_works NAME: a short checked run between the pair.
LP_PORT=19800	# local_perftest's (lib.sh)
still_works() { local_perftest "$1-after" 65536 ib_write_bw -s 65536 -n 200; }

load_start del-client ib_write_bw -s 65536
remove del-client "rdma link delete $CDEV" rdma link delete "$CDEV"
wait_until 20 "$CDEV to go" gone "$CDEV"
load_end del-client
readd_client
still_works del-client

load_start del-server ib_read_bw -s 65536
remove del-server "rdma link delete $SDEV" rdma link delete "$SDEV"
wait_until 20 "$SDEV to go" gone "$SDEV"
load_end del-server
readd_server
still_works del-server

load_start rmmod ib_send_bw -s 4096
remove rmmod "rmmod sroce" rmmod sroce
wait_until 20 "both devices to go" bash -c "! test -e /sys/class/infiniband/$SDEV && ! test -e /sys/class/infiniband/$CDEV"
load_end rmmod
wait_until 10 "sroce module gone" bash -c "! test -d /sys/module/sroce"
load_sroce
readd_server
readd_client
still_works rmmod

load_start netdev-del ib_write_bw -s 65536
remove netdev-del "ip link del veth0" ip link del veth0
wait_until 20 "both devices to go with the veth pair" \
	bash -c "! test -e /sys/class/infiniband/$SDEV && ! test -e /sys/class/infiniband/$CDEV"
load_end netdev-del

unload_sroce
ip netns del peer
log "ok"
