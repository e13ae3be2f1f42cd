#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Devices go away while processes still use them: a process holding a
# pinned MR (and one watching async events) must not keep the device, the
# netdev or the module from going away. Each removal path in turn: netdev
# deleted, rdma link delete, module unload. The holders survive until
# they are killed, and the kernel log stays clean (no hung task).
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case (rxe waits for the process)"; exit 0; }

# Both holders must have the device open before it is removed: a watcher
# still starting when the device goes finds no device and exits, which is
# not what this case is about. The timeout only reaps a watcher the case
# lost; release() kills it long before.
hold() {		# DEV: start holders, leave their pids in $holders
	"$PROGS/mr_basic" "$1" hold 16 >"$RESULTS/hold-$1.txt" 2>&1 &
	holders="$!"
	timeout 300 ibv_asyncwatch -d "$1" >"$RESULTS/async-$1.txt" 2>&1 &
	holders+=" $!"
	wait_until 20 "holder of $1 ready" grep -q "holding pid" "$RESULTS/hold-$1.txt"
	wait_until 20 "watcher of $1 ready" grep -q "async event FD" "$RESULTS/async-$1.txt"
}

release() {		# kill the holders; they must still be alive
	local p
	for p in $holders; do
		kill -0 "$p" 2>/dev/null || {
			cat "$RESULTS"/hold-*.txt "$RESULTS"/async-*.txt >&2
			fail "holder $p died with its device"
		}
		kill -9 "$p"
		wait "$p" 2>/dev/null || true
	done
}

make_veth
load_sroce

log "netdev deleted under a busy device"
link_add sroce0 veth0
hold sroce0
ip link del veth0
wait_until 20 "sroce0 to go with veth0" gone sroce0
release

log "rdma link delete of a busy device"
ip link add veth2 type veth peer name veth3
ip link set veth2 up
ip link set veth3 up
link_add sroce1 veth2
hold sroce1
run_timeout 30 rdma link delete sroce1 || fail "rdma link delete sroce1 failed"
wait_until 20 "sroce1 to go" gone sroce1
release

log "module unloaded under a busy device"
link_add sroce2 veth3
hold sroce2
run_timeout 60 rmmod sroce || fail "rmmod with a busy device failed"
wait_until 20 "sroce2 to go" gone sroce2
release
wait_until 10 "sroce module gone" bash -c "! test -d /sys/module/sroce"

log "reload works afterwards"
load_sroce
link_add sroce3 veth2
assert_eq "$(port_state sroce3)" ACTIVE "port state after reload"
unload_sroce
log "ok"
