# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for guest test cases. A case is a bash script that runs as root in
# a fresh guest (scripts/guest/run-guest) and starts with
#
#	. "$(dirname "$0")/lib.sh"
#
# It fails by exiting non-zero; `fail` prints the reason the runner reports.
# Environment from the runner: REPO, SROCE_KO, RESULTS, KVER, and
# SROCE_IMPL=sroce (default) or rxe to prove a case on the in-tree rdma_rxe.
# Device names are $DEVPFX followed by a number (sroce0, or rxe0 on rxe).

set -euo pipefail

SROCE_IMPL=${SROCE_IMPL:-sroce}
case $SROCE_IMPL in
sroce)	RDMA_TYPE=sroce RDMA_MODULE=sroce ;;
rxe)	RDMA_TYPE=rxe RDMA_MODULE=rdma_rxe ;;
*)	echo "FAIL: unknown SROCE_IMPL=$SROCE_IMPL" >&2; exit 1 ;;
esac
DEVPFX=$RDMA_TYPE
PROGS=$REPO/build/guest/progs		# tests/guest/progs/*.c, built on the host

log() { echo "== $*"; }

# A case may set FAIL_REPORT to a function that shows what it knows about
# the failure (device state, say); fail runs it first, in a subshell, so
# that nothing it does can replace the reason.
fail() {
	if [[ -n ${FAIL_REPORT:-} ]]; then
		local report=$FAIL_REPORT
		FAIL_REPORT=
		("$report") >&2 || true
	fi
	echo "FAIL: $*" >&2
	exit 1
}

# run_timeout SECS CMD...: every client runs under one of these.
run_timeout() {
	local secs=$1
	shift
	timeout -k 5 "$secs" "$@"
}

assert_eq() {		# ACTUAL EXPECTED [WHAT]
	[[ $1 == "$2" ]] || fail "${3:-value}: expected '$2', got '$1'"
}

assert_match() {	# STRING ERE [WHAT]
	[[ $1 =~ $2 ]] || fail "${3:-value}: '$1' does not match /$2/"
}

assert_no_match() {	# STRING ERE [WHAT]
	[[ ! $1 =~ $2 ]] || fail "${3:-value}: '$1' unexpectedly matches /$2/"
}

# nap SECS: sleep without starting a process. On a loaded host every
# process a guest starts costs it up to a second of CPU, so polling loops
# wait on a FIFO nobody writes to instead of running sleep.
nap() {
	local fifo=/tmp/.nap.$BASHPID
	if [[ -z ${NAP_FD:-} ]]; then
		[[ -p $fifo ]] || mkfifo "$fifo"
		exec {NAP_FD}<>"$fifo"
		rm -f "$fifo"
	fi
	read -rt "$1" -u "$NAP_FD" _ || true
}

# wait_until SECS WHAT CMD...: poll CMD until it succeeds, fail after SECS.
wait_until() {
	local secs=$1 what=$2 end
	shift 2
	end=$((SECONDS + secs))
	until "$@"; do
		((SECONDS < end)) || fail "timed out after ${secs}s waiting for $what"
		nap 0.2
	done
}

# --- module and links -------------------------------------------------------

load_sroce() {
	# The RDMA core and UDP tunnel helpers are modules in the Debian kernel.
	run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
		fail "cannot load the RDMA core modules"
	if [[ $SROCE_IMPL == rxe ]]; then
		run_timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
		return
	fi
	[[ -r $SROCE_KO ]] || fail "module not built: $SROCE_KO"
	run_timeout 60 insmod "$SROCE_KO" || fail "insmod $SROCE_KO failed"
	[[ -d /sys/module/sroce ]] || fail "sroce not in /sys/module after insmod"
}

module_loaded() { [[ -d /sys/module/$RDMA_MODULE ]]; }

# Remove every $DEVPFX* device, then the module; failing to unload fails.
unload_sroce() {
	local d
	for d in /sys/class/infiniband/"$DEVPFX"*; do
		[[ -e $d ]] || continue
		link_del "${d##*/}"
	done
	run_timeout 60 rmmod "$RDMA_MODULE" || fail "rmmod $RDMA_MODULE failed"
	wait_until 10 "$RDMA_MODULE to unload" bash -c "! [[ -d /sys/module/$RDMA_MODULE ]]"
}

link_add() {		# NAME NETDEV
	run_timeout 30 rdma link add "$1" type "$RDMA_TYPE" netdev "$2" ||
		fail "rdma link add $1 type $RDMA_TYPE netdev $2 failed"
	wait_until 10 "$1 in /sys/class/infiniband" test -e "/sys/class/infiniband/$1"
}

link_del() {		# NAME
	run_timeout 30 rdma link delete "$1" || fail "rdma link delete $1 failed"
	wait_until 10 "$1 to disappear" bash -c "! test -e /sys/class/infiniband/$1"
}

# --- networks ----------------------------------------------------------------

# veth0 (192.0.2.1, 2001:db8::1) <-> veth1 (192.0.2.2, 2001:db8::2), both up.
# Inside one guest both ends are local addresses.
make_veth() {
	run_timeout 30 modprobe veth || fail "modprobe veth failed"
	ip link add veth0 type veth peer name veth1
	ip addr add 192.0.2.1/24 dev veth0
	ip addr add 192.0.2.2/24 dev veth1
	# nodad: addresses are usable at once, no duplicate detection delay.
	ip -6 addr add 2001:db8::1/64 dev veth0 nodad
	ip -6 addr add 2001:db8::2/64 dev veth1 nodad
	ip link set veth0 up
	ip link set veth1 up
}

# veth0 (192.0.2.1, 2001:db8::1) here <-> veth1 (192.0.2.2, 2001:db8::2) in
# network namespace "peer": a real wire between two hosts' stacks.
make_veth_netns() {
	run_timeout 30 modprobe veth || fail "modprobe veth failed"
	ip netns add peer
	ip link add veth0 type veth peer name veth1 netns peer
	ip addr add 192.0.2.1/24 dev veth0
	ip -6 addr add 2001:db8::1/64 dev veth0 nodad
	ip link set veth0 up
	ip -n peer addr add 192.0.2.2/24 dev veth1
	ip -n peer -6 addr add 2001:db8::2/64 dev veth1 nodad
	ip -n peer link set veth1 up
	ip -n peer link set lo up
}

mac_of() { cat "/sys/class/net/$1/address"; }

# --- device attributes ---------------------------------------------------------

port_dir() { echo "/sys/class/infiniband/$1/ports/1"; }

# "ACTIVE", "DOWN", ... from sysfs ("4: ACTIVE").
port_state() {
	local s
	s=$(cat "$(port_dir "$1")/state")
	echo "${s#*: }"
}

# devinfo_field DEV FIELD: the value of "FIELD:" in `ibv_devinfo -v -d DEV`,
# e.g. devinfo_field sroce0 active_mtu -> "1024 (3)".
devinfo_field() {
	run_timeout 30 ibv_devinfo -v -d "$1" |
		awk -v f="$2:" '$1 == f { $1 = ""; sub(/^[ \t]+/, ""); print; exit }'
}

# Non-empty GID table entries, one per line: "INDEX GID TYPE NETDEV", with the
# GID in sysfs form (eight groups of four hex digits).
gid_table() {
	local dir f idx gid
	dir=$(port_dir "$1")
	# One grep reads all 1024 entries quickly; skip the zero ones.
	grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$dir"/gids/* 2>/dev/null |
	while IFS=: read -r f gid; do
		idx=${f##*/}
		echo "$idx $gid $(cat "$dir/gid_attrs/types/$idx" | tr ' ' _) $(cat "$dir/gid_attrs/ndevs/$idx")"
	done | sort -n
}

# has_gid DEV GID [TYPE]: the table has GID (sysfs form), of TYPE if given
# (types use "_" for spaces: RoCE_v2).
has_gid() {
	gid_table "$1" | awk -v g="$2" -v t="${3:-}" \
		'$2 == g && (t == "" || $3 == t) { found = 1 } END { exit !found }'
}

# dev_counters DEV: DEV's non-zero port counters, "name=value" on one line.
dev_counters() {
	local f v out=()
	for f in "/sys/class/infiniband/$1/ports/1/hw_counters"/*; do
		[[ -f $f ]] || continue
		read -r v <"$f" || continue
		[[ $v == 0 ]] || out+=("${f##*/}=$v")
	done
	echo "${out[*]}"
}

# res_count KIND DEV: how many objects of KIND (pd, cq, mr, ...) on DEV
# rdma resource tracking shows, the kernel users' among them.
res_count() { run_timeout 30 rdma resource show "$1" | grep -c "dev $2 " || true; }

# res_count_is KIND DEV N: res_count KIND DEV is N (for wait_until).
res_count_is() { [[ $(res_count "$1" "$2") == "$3" ]]; }

# --- address arithmetic --------------------------------------------------------

# ipv6_full ADDR: the sysfs form, e.g. 2001:db8::1 ->
# 2001:0db8:0000:0000:0000:0000:0000:0001.
ipv6_full() {
	local a=$1 head tail g out=() h=() t=() i n
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
	else
		head=$a tail=
	fi
	[[ -n $head ]] && IFS=: read -ra h <<<"$head"
	[[ -n $tail ]] && IFS=: read -ra t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	out=("${h[@]}")
	for ((i = 0; i < n; i++)); do out+=(0); done
	out+=("${t[@]}")
	printf -v g '%04x:' $(for i in "${out[@]}"; do echo $((16#$i)); done)
	echo "${g%:}"
}

# ipv4_gid A.B.C.D: the IPv4-mapped GID ::ffff:A.B.C.D in sysfs form.
ipv4_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

# eui64 MAC: modified EUI-64 interface id "xxxx:xxff:fexx:xxxx" (ff:fe in
# the middle, universal/local bit flipped) -- the node GUID of a RoCE device
# and the low half of its link-local GID.
eui64() {
	local m
	IFS=: read -ra m <<<"$1"
	printf '%02x%s:%sff:fe%s:%s%s\n' $((16#${m[0]} ^ 2)) "${m[1]}" "${m[2]}" \
		"${m[3]}" "${m[4]}" "${m[5]}"
}

# linklocal_gid MAC: fe80::EUI-64 in sysfs form.
linklocal_gid() { echo "fe80:0000:0000:0000:$(eui64 "$1")"; }

# --- two-guest cases (tests/guest2) --------------------------------------------
# ROLE (A or B), MY_IP/PEER_IP, MY_IP6/PEER_IP6 and SHARED (a directory both
# guests see) come from scripts/guest/run-guest-pair. Guest A has the wire's
# listening end; both guests' NIC is eth0.

PEER_ROLE=A
[[ ${ROLE:-} == A ]] && PEER_ROLE=B

# signal NAME: tell the peer we reached NAME. Signals have names of their
# own ("A.at.NAME"), so that a case's data file "A.NAME" cannot pass for
# one while it is being written.
signal() { touch "$SHARED/$ROLE.at.$1"; }

# A guest whose case exits non-zero says so ("$ROLE.failed"), so that the
# peer stops waiting for it at once instead of running into a timeout; then
# it runs the case's on_failure function, if there is one, for diagnostics.
guest2_exit() {
	local rc=$?
	((rc != 0)) || return 0
	touch "$SHARED/$ROLE.failed" 2>/dev/null || true
	# To stderr: the case may have died inside a redirection of stdout.
	if declare -F on_failure >/dev/null; then on_failure >&2 || true; fi
}
if [[ -n ${ROLE:-} && -n ${SHARED:-} ]]; then
	trap guest2_exit EXIT
fi

peer_failed() { [[ -e $SHARED/$PEER_ROLE.failed ]]; }

# peer_reached NAME: the peer signalled NAME; fails the case if the peer
# failed instead.
peer_reached() {
	[[ -e $SHARED/$PEER_ROLE.at.$1 ]] && return 0
	peer_failed && fail "peer $PEER_ROLE failed before reaching '$1'"
	return 1
}

# wait_peer NAME [SECS]: wait until the peer signalled NAME.
wait_peer() {
	wait_until "${2:-60}" "peer $PEER_ROLE to reach '$1'" peer_reached "$1"
}

# What one guest stored, checked by the other against what it wrote:
# sum_serve NAME SECS CMD... waits up to SECS for the peer's sum_check
# NAME and answers with the SHA-256 of CMD's output; sum_check NAME FILE
# WHAT asks and asserts that the answer is FILE's SHA-256.
sum_serve() {
	local name=$1 secs=$2
	shift 2
	wait_peer "sum-$name" "$secs"
	"$@" | sha256sum | cut -d' ' -f1 >"$SHARED/sumval-$name"
	signal "summed-$name"
}

sum_check() {
	signal "sum-$1"
	wait_peer "summed-$1" 120
	assert_eq "$(<"$SHARED/sumval-$1")" "$(sha256sum <"$2" | cut -d' ' -f1)" "$3"
}

# setup_wire: address eth0 and bring it up.
setup_wire() {
	ip addr add "$MY_IP/24" dev eth0
	ip -6 addr add "$MY_IP6/64" dev eth0 nodad
	ip link set eth0 up
	wait_until 10 "eth0 carrier" grep -qx 1 /sys/class/net/eth0/carrier
}

# wire_rdma_dev: on a guest of a pair, the wire up (setup_wire), the
# module loaded and device ${DEVPFX}0 on eth0 as $dev, with the GID index
# of $MY_IP in $g4; a failure then also shows the device's counters.
wire_rdma_dev() {
	dev=${DEVPFX}0
	on_failure() { log "$dev counters: $(dev_counters "$dev")"; }
	setup_wire
	load_sroce
	link_add "$dev" eth0
	g4=$(wait_roce_gid 10 "$dev" "$MY_IP") || fail "no RoCE v2 GID for $MY_IP on $dev"
}

# wire_meet: waits until both guests have their device (wire_rdma_dev)
# and logs which driver each runs.
wire_meet() {
	log "guest $ROLE: $dev ($RDMA_MODULE), GID index $g4 ($MY_IP)"
	echo "$dev ($RDMA_MODULE)" >"$SHARED/$ROLE.dev"
	signal bound
	wait_peer bound 120
	log "peer $PEER_ROLE: $(<"$SHARED/$PEER_ROLE.dev")"
}

# wire_done: the end of a case run on wire_rdma_dev: its counters logged,
# on sroce no packet with a bad ICRC or header, the module unloaded.
wire_done() {
	log "$dev counters: $(dev_counters "$dev")"
	if [[ $SROCE_IMPL == sroce ]]; then
		assert_eq "$(port_counter "$dev" rx_bad_icrc)" 0 "ICRC errors"
		assert_eq "$(port_counter "$dev" rx_bad_header)" 0 "bad headers"
	fi
	unload_sroce
	log "ok"
}

# capture_start PCAP [OPTION...]: RoCE v2 frames on eth0 (UDP port 4791),
# both ways, into PCAP until capture_stop; sets pcap. The OPTIONs go to
# tcpdump: --immediate-mode for a short capture that must miss no frame
# (by default the socket hands tcpdump its frames in blocks, and a block
# still filling at the end may be lost); not for bandwidth runs, where
# waking tcpdump for each frame loses half of them.
capture_start() {
	pcap=$1
	shift
	tcpdump -i eth0 -s 0 -U "$@" -w "$pcap" udp port 4791 \
		2>"$RESULTS/tcpdump.log" &
	CAPTURE_PID=$!
	# tcpdump says "listening on" once its socket is open.
	for _ in $(seq 50); do
		grep -q "listening on" "$RESULTS/tcpdump.log" && return
		sleep 0.2
	done
	fail "tcpdump did not start: $(cat "$RESULTS/tcpdump.log")"
}

# capture_stop: the capture ends, written out. tcpdump stops at once on
# SIGINT, dropping what its socket still holds: give it a second first.
capture_stop() {
	sleep 1
	kill -INT "$CAPTURE_PID"
	wait "$CAPTURE_PID" || true
}

# The bad wire: loss, reordering, duplication and delay on eth0.
WIRE_NETEM=(loss 2% reorder 25% 50% duplicate 1% delay 1ms)
WIRE_LOSSY=		# set between netem_start and netem_end

# netem_start NAME: impairs eth0 with WIRE_NETEM; both guests meet at NAME
# so that both ends are impaired before either sends.
netem_start() {
	command -v tc >/dev/null || fail "no tc (iproute2) in the guest"
	run_timeout 30 modprobe sch_netem ||
		fail "netem is not available: no sch_netem module for kernel $(uname -r)"
	tc qdisc add dev eth0 root netem "${WIRE_NETEM[@]}" ||
		fail "tc qdisc add ... netem ${WIRE_NETEM[*]} failed"
	log "eth0: $(tc qdisc show dev eth0 | grep netem)"
	WIRE_LOSSY=1
	signal "$1"
	wait_peer "$1" 120
}

# netem_end: netem must actually have dropped packets; eth0 is clean again.
netem_end() {
	local stats dropped
	stats=$(tc -s qdisc show dev eth0)
	log "eth0: $(grep -m1 'Sent' <<<"$stats")"
	dropped=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' <<<"$stats" | head -n 1)
	[[ ${dropped:-0} -gt 0 ]] || fail "netem dropped no packets: $stats"
	tc qdisc del dev eth0 root
	WIRE_LOSSY=
}

# pair_run NAME SERVER SECS CMD [ARGS...]
#
# One client/server program across the wire (perftest, ibv_*_pingpong:
# anything that takes "-p PORT" and the server's address last). Guest
# SERVER (A or B) runs `CMD ARGS... -p PORT`, the other guest
# `CMD ARGS... -p PORT PEER_IP` once the server listens; both guests call
# pair_run alike, each with its own ARGS (device, GID index), and every call
# takes the next port (next_port). Each side runs under a hard timeout of
# SECS (side_start) with its output in $RESULTS/NAME.txt (PAIR_OUT;
# PAIR_SIDE is "server" or "client"), and is stopped as soon as the peer
# fails. Fails the case unless CMD exits 0; returns once the peer's side
# has exited 0 as well.
# With PAIR_CM set, the server is an rdma_cm one (it listens on an rdma_cm
# ID, not a TCP socket); with PAIR_PRELOAD set, CMD runs with that library
# preloaded.
pair_run() {
	local name=$1 server=$2 secs=$3 port pid rc=0 t0=$SECONDS
	shift 3
	next_port port
	PAIR_OUT=$RESULTS/$name.txt
	if [[ $ROLE == "$server" ]]; then
		PAIR_SIDE=server
		SIDE_PRELOAD=${PAIR_PRELOAD:-} side_start pid "$PAIR_OUT" "$secs" "" "$@" -p "$port"
		# Stop waiting if it exits early: its status tells why, below.
		wait_until 60 "$name: server listening on port $port" \
			"${PAIR_CM:+cm_}listening_or_gone" "$pid" "$port"
		signal "listening-$name"
	else
		PAIR_SIDE=client
		wait_peer "listening-$name" 120
		SIDE_PRELOAD=${PAIR_PRELOAD:-} side_start pid "$PAIR_OUT" "$secs" "" "$@" -p "$port" "$PEER_IP"
	fi
	while kill -0 "$pid" 2>/dev/null; do
		if peer_failed; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			sed 's/^/  | /' "$PAIR_OUT"
			fail "$name: peer $PEER_ROLE failed; our $PAIR_SIDE stopped"
		fi
		nap 0.2
	done
	wait "$pid" || rc=$?
	if ((rc != 0)); then
		sed 's/^/  | /' "$PAIR_OUT"
		timed_out "$rc" && fail "$name: $PAIR_SIDE $1 timed out after ${secs}s"
		fail "$name: $PAIR_SIDE $1 exited with status $rc"
	fi
	log "$name: $PAIR_SIDE $1 done in $((SECONDS - t0))s"
	signal "done-$name"
	wait_peer "done-$name" "$secs"
}

# pair_has_row NAME SIZE ITERS: this side of pair_run NAME printed a result
# row for SIZE bytes x ITERS (PAIR_ROW, see perftest_has_row).
pair_has_row() {
	perftest_has_row "$PAIR_OUT" "$2" "$3" ||
		fail "$1 ($PAIR_SIDE): no result row for $2 bytes x $3 in $PAIR_OUT"
	PAIR_ROW=$PERFTEST_ROW
}

# pair_bw NAME SERVER SECS DEV GID PROG SIZE ITERS [ARGS...]: a perftest
# bandwidth run (ib_{write,read,send}_bw) on DEV with GID index GID; both
# sides print the result row (its numbers may be 0.00 on a loaded guest).
pair_bw() {
	local name=$1 size=$7 iters=$8
	pair_run "$name" "$2" "$3" "$6" -d "$4" -x "$5" -F -s "$size" -n "$iters" "${@:9}"
	pair_has_row "$name" "$size" "$iters"
	log "$name: $PAIR_ROW"
}

# pair_pingpong NAME SERVER SECS DEV GID SIZE ITERS [PROG [ARGS...]]: an
# ibverbs-utils pingpong (ibv_rc_pingpong by default) with -c on DEV with
# GID index GID; both sides report every iteration (ibv_rc_pingpong and
# ibv_uc_pingpong: and every byte). Between netem_start and netem_end its
# QPs linger before they are destroyed (tests/guest/progs/linger.c): the
# last ACK may be lost, and the peer's resend must find the QP.
pair_pingpong() {
	local name=$1 size=$6 iters=$7 prog=${8:-ibv_rc_pingpong} line bytes='' its=''
	PAIR_PRELOAD=${WIRE_LOSSY:+$PROGS/linger} \
		pair_run "$name" "$2" "$3" "$prog" -d "$4" -g "$5" -c -s "$size" -n "$iters" "${@:9}"
	[[ $prog == ibv_[ru]c_pingpong ]] || bytes=unchecked
	while IFS= read -r line; do
		case $line in
		# -c checks the first byte of every page; a mismatch only prints.
		"invalid data"*)			fail "$name ($PAIR_SIDE): $line" ;;
		"$((size * iters * 2)) bytes in "*)	bytes=$line ;;
		"$iters iters in "*)			its=$line ;;
		esac
	done <"$PAIR_OUT"
	[[ -n $bytes ]] || fail "$name ($PAIR_SIDE): no '$((size * iters * 2)) bytes in' line in $PAIR_OUT"
	[[ -n $its ]] || fail "$name ($PAIR_SIDE): no '$iters iters in' line in $PAIR_OUT"
	log "$name: $its"
}

# --- RoCE endpoints in one guest ------------------------------------------------

# roce_gid_index DEV ADDR: index of the RoCE v2 GID of ADDR (IPv4, as
# ::ffff:a.b.c.d, or IPv6) in DEV's table; empty if there is none.
roce_gid_index() {
	local want
	if [[ $2 == *:* ]]; then want=$(ipv6_full "$2"); else want=$(ipv4_gid "$2"); fi
	gid_table "$1" | awk -v g="$want" '$2 == g && $3 == "RoCE_v2" { print $1; exit }'
}

# wait_roce_gid SECS DEV ADDR: print the index once the GID is there (the
# core fills the table shortly after the link comes up); status 1 if not.
wait_roce_gid() {
	local end=$((SECONDS + $1)) idx
	while :; do
		idx=$(roce_gid_index "$2" "$3") || idx=
		[[ -n $idx ]] && { echo "$idx"; return 0; }
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# rdma_pair MTU: the two endpoints of a one-guest case, on a veth pair
# with netdev MTU MTU. sroce: sroce0 on veth0 (192.0.2.1) here, sroce1 on
# veth1 (192.0.2.2) in namespace "peer". rxe cannot deliver between two of
# its own devices on one host: rxe0 on veth0 serves both sides. Sets
# SDEV/SADDR/SG (server device, address, GID index), CDEV/CADDR/CG (client),
# CNETNS (the client's network namespace, "" for this one) and CNS (the
# command prefix that runs in it).
rdma_pair() {
	if [[ $SROCE_IMPL == rxe ]]; then
		make_veth
		ip link set veth0 mtu "$1"
		ip link set veth1 mtu "$1"
		link_add rxe0 veth0
		SDEV=rxe0 CDEV=rxe0 CNETNS='' CADDR=192.0.2.1
	else
		make_veth_netns
		ip link set veth0 mtu "$1"
		ip -n peer link set veth1 mtu "$1"
		link_add sroce0 veth0
		run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
			fail "rdma link add sroce1 in namespace peer"
		wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
		SDEV=sroce0 CDEV=sroce1 CNETNS=peer CADDR=192.0.2.2
	fi
	CNS=()
	# shellcheck disable=SC2034 # for the cases
	[[ -z $CNETNS ]] || CNS=(ip netns exec "$CNETNS")
	SADDR=192.0.2.1
	SG=$(wait_roce_gid 10 "$SDEV" "$SADDR") || fail "no RoCE v2 GID for $SADDR on $SDEV"
	CG=$(wait_roce_gid 10 "$CDEV" "$CADDR") || fail "no RoCE v2 GID for $CADDR on $CDEV"
}

# port_counter DEV NAME: the value of one of DEV's port counters.
port_counter() { cat "$(port_dir "$1")/hw_counters/$2"; }

# rdma_pair_done: the end of an rdma_pair case: on sroce no packet had a
# bad ICRC on either device; the module unloads (every object was freed)
# and the namespace goes.
rdma_pair_done() {
	local d
	if [[ $SROCE_IMPL != rxe ]]; then
		for d in sroce0 sroce1; do
			assert_eq "$(port_counter "$d" rx_bad_icrc)" 0 "$d bad ICRC"
		done
	fi
	unload_sroce
	[[ $SROCE_IMPL == rxe ]] || ip netns del peer
	log "ok"
}

# show_counters DEV...: their non-zero port counters, for a failure report.
show_counters() {
	local d
	for d in $(printf '%s\n' "$@" | sort -u); do
		echo "---- $d counters: $(grep -H . "$(port_dir "$d")"/hw_counters/* 2>/dev/null |
			awk -F: '$2 != 0 { sub(/.*\//, "", $1); printf "%s=%s ", $1, $2 }')"
	done
}

# run_prog NAME SECS PROG ARGS...: one of tests/guest/progs (PROG) within
# SECS seconds; its output goes to $RESULTS/NAME.txt and must end in
# "PROG all ok". A failure shows the output, the counters of the rdma_pair
# devices (if set up) and the program's FAIL line. Prints its "ok" and
# "rxe quirk" lines.
run_prog() {
	local name=$1 secs=$2 prog=$3 out=$RESULTS/$1.txt rc=0
	shift 3
	run_timeout "$secs" "$PROGS/$prog" "$@" >"$out" 2>&1 || rc=$?
	if ((rc)); then
		cat "$out"
		[[ -n ${SDEV:-} ]] && show_counters "$SDEV" "$CDEV"
		timed_out "$rc" && fail "$name: timed out after ${secs}s"
		fail "$name: $(grep -m1 '^FAIL' "$out" || echo "exit $rc")"
	fi
	grep -q "^$prog all ok" "$out" || { cat "$out"; fail "$name: no '$prog all ok'"; }
	grep -E '^(\[ *[0-9.]+s\] )?ok|^rxe quirk' "$out" || true
}

# --- client/server runs ---------------------------------------------------------
#
# Programs that run as a server and a client (perftest, ibverbs-utils
# pingpongs, rping, ...) meet on a port. Every run takes the next one of
# a single counter (next_port), so that no two runs of a guest boot
# share a port; the two guests of a pair take theirs in the same order
# (pair_run), so that both sides of a run get the same one. One launcher
# runs both sides in this guest (local_run); pair_run runs one side in
# each guest of a pair. Both start a side with side_start.

NEXT_PORT=${NEXT_PORT:-18600}

# next_port VAR: VAR is the next port of the counter.
next_port() {
	printf -v "$1" %d "$NEXT_PORT"
	NEXT_PORT=$((NEXT_PORT + 1))
}

# timed_out STATUS: STATUS is that of a command stopped by its timeout
# (124, or 137 if it had to be killed).
timed_out() { (($1 == 124 || $1 == 137)); }

# side_start VAR OUT SECS NETNS CMD...: one side of a run, in the
# background: CMD under a hard timeout of SECS in network namespace NETNS
# ("": this one), line-buffered (a run killed by its timeout keeps what
# it printed), its output in OUT; with SIDE_PRELOAD set, with that
# library preloaded. VAR is its pid: timeout's, a process in NETNS (its
# child is CMD), so that listening_or_gone sees the sockets there.
side_start() {
	local _side_var=$1 _side_out=$2 _side_secs=$3 _side_ns=() _side_pre=()
	[[ -n $4 ]] && _side_ns=(ip netns exec "$4")
	[[ -n ${SIDE_PRELOAD:-} ]] && _side_pre=(env "LD_PRELOAD=$SIDE_PRELOAD")
	shift 4
	"${_side_ns[@]}" timeout -k 5 "$_side_secs" "${_side_pre[@]}" stdbuf -oL -eL "$@" \
		>"$_side_out" 2>&1 &
	printf -v "$_side_var" %d "$!"
}

# no_rc_qp DEV: DEV has no RC QP left.
no_rc_qp() { ! rdma resource show qp link "$1/1" | grep -q 'type RC'; }

# gone DEV: there is no RDMA device DEV (any more).
gone() { ! test -e "/sys/class/infiniband/$1"; }

# listening_or_gone PID PORT: PID has exited, or a socket of PID's
# network namespace listens on TCP PORT (read from /proc: no process
# started).
listening_or_gone() {
	local hex f addr st
	kill -0 "$1" 2>/dev/null || return 0
	printf -v hex '%04X' "$2"
	for f in "/proc/$1/net/tcp" "/proc/$1/net/tcp6"; do
		# PID may exit meanwhile: then its files are gone.
		{
			while read -r _ addr _ st _; do
				[[ ${addr##*:} == "$hex" && $st == 0A ]] && return 0
			done <"$f"
		} 2>/dev/null
	done
	return 1
}

# cm_listening_or_gone PID PORT: PID has exited, or an rdma_cm ID listens
# on PORT (rdma_cm servers open no TCP socket).
cm_listening_or_gone() {
	kill -0 "$1" 2>/dev/null || return 0
	rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*:$2 "
}

# local_run BASE SECS PORT SNS CNS: one client/server run with both sides
# in this guest. SRV (an array) is the server's command line, listening
# on TCP PORT, CLI the client's. The server runs in network namespace SNS
# ("": this one) and the client, once the server listens, in CNS; their
# outputs go to BASE-server.txt and BASE-client.txt (side_start). The
# client runs under a SECS timeout; the server gets 15 s more to finish
# after a successful client, 2 s after a failed one (it may be spinning
# on its completion queue), and is killed then. Returns non-zero if
# either side failed: 124 if the client timed out, 125 if the server
# never listened (within 30 s; BASE-client.txt then says so), else the
# client's status or, if that is 0, the server's (143: it was killed);
# call it as `local_run ... || rc=$?`. CLIENT_RC and SERVER_RC are the
# two sides' statuses (CLIENT_RC 125: the client did not run).
local_run() {
	local base=$1 secs=$2 port=$3 sns=$4 cns=$5 spid cpid end up
	CLIENT_RC=0 SERVER_RC=0
	side_start spid "$base-server.txt" $((secs + 20)) "$sns" "${SRV[@]}"
	# The server listens once its device and buffers are set up.
	end=$((SECONDS + 30)) up=0
	while ((SECONDS < end)); do
		listening_or_gone "$spid" "$port" && { up=1; break; }
		nap 0.2
	done
	if ((!up)) || ! kill -0 "$spid" 2>/dev/null; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || SERVER_RC=$?
		echo "${SRV[0]} server never listened on port $port:" \
			"$(perftest_error "$base-server.txt")" >"$base-client.txt"
		CLIENT_RC=125
		return 125
	fi

	side_start cpid "$base-client.txt" "$secs" "$cns" "${CLI[@]}"
	wait "$cpid" || CLIENT_RC=$?
	((CLIENT_RC != 137)) || CLIENT_RC=124
	end=$((SECONDS + (CLIENT_RC == 0 ? 15 : 2)))
	while kill -0 "$spid" 2>/dev/null && ((SECONDS < end)); do
		nap 0.2
	done
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || SERVER_RC=$?
	((CLIENT_RC != 0)) && return "$CLIENT_RC"
	return "$SERVER_RC"
}

# local_pingpong PROG NAME ARGS...: an ibverbs-utils pingpong (PROG:
# ibv_rc_pingpong, ibv_uc_pingpong, ibv_srq_pingpong...) with data checks
# (-c) between the rdma_pair ends: server on SDEV, client on CDEV, both
# for $PP_ITERS iterations (default 100), the client under a 60 s timeout
# (local_run); both sides must exit 0 and report every iteration.
local_pingpong() {
	local prog=$1 name=$2 base=$RESULTS/$2 port iters=${PP_ITERS:-100} rc=0 out srv
	local SRV CLI
	shift 2
	next_port port
	log "$name: $prog $*"
	SRV=("$prog" -p "$port" -d "$SDEV" -g "$SG" -n "$iters" -c "$@")
	CLI=("$prog" -p "$port" -d "$CDEV" -g "$CG" -n "$iters" -c "$@" "$SADDR")
	local_run "$base" 60 "$port" "" "${CNETNS:-}" || rc=$?
	out=$(<"$base-client.txt") srv=$(<"$base-server.txt")
	if ((rc)); then
		echo "---- client (exit $CLIENT_RC)"; echo "$out"
		echo "---- server (exit $SERVER_RC)"; echo "$srv"; echo
		show_counters "$SDEV" "$CDEV"
		if timed_out "$CLIENT_RC" || timed_out "$SERVER_RC"; then
			fail "$name: timed out (client exit $CLIENT_RC, server exit $SERVER_RC)"
		fi
		fail "$name: client exit $CLIENT_RC, server exit $SERVER_RC: $(grep -hm1 -iE 'fail|error|couldn|unable|never listened' <<<"$out" || true)"
	fi
	# -c only prints a mismatch ("invalid data"), it does not fail.
	assert_no_match "$out$srv" "invalid data" "$name: data check"
	assert_match "$out" "$iters iters in" "$name: client iterations"
	assert_match "$srv" "$iters iters in" "$name: server iterations"
}

# --- perftest ------------------------------------------------------------------

# perftest_rows FILE: the result table perftest printed to FILE, the one
# parser of it: PERFTEST_ROWS=(its rows, "BYTES ITERS VALUE...", blanks
# squeezed), PERFTEST_COLS=(its header's column names, without their
# units and with spaces made "_": #bytes, #iterations, BW_peak,
# BW_average, MsgRate, t_min, t_typical, t_avg, 99%_percentile, ...),
# PERFTEST_UNITS=(each column's unit, "" if it has none: MB/sec, usec).
perftest_rows() {
	local line in_table='' f=() h u
	PERFTEST_ROWS=() PERFTEST_COLS=() PERFTEST_UNITS=()
	while IFS= read -r line; do
		# perftest's clock warning may land in the middle of a row.
		line=${line%%Correlation coefficient*}
		if [[ $line =~ ^[[:space:]]*#bytes ]]; then
			in_table=1
			((${#PERFTEST_COLS[@]} == 0)) || continue
			line=${line//BW /BW_}
			line=${line//% percentile/%_percentile}
			read -ra f <<<"$line"
			for h in "${f[@]}"; do
				u=
				[[ $h == *\[*\]* ]] && { u=${h#*\[}; u=${u%%\]*}; }
				PERFTEST_COLS+=("${h%%\[*}")
				PERFTEST_UNITS+=("$u")
			done
		elif [[ -n $in_table && $line =~ ^[[:space:]]*[0-9]+[[:space:]] ]]; then
			# Numbers only: split on blanks, nothing to glob.
			# shellcheck disable=SC2206
			f=($line)
			PERFTEST_ROWS+=("${f[*]}")
		fi
	done <"$1"
}

# perftest_row_ok ROW SIZE ITERS: ROW (from PERFTEST_ROWS) is for SIZE
# bytes x ITERS (EREs) and has a number in every column, or "inf"/"-nan":
# perftest's clock calibration fails on a loaded guest.
perftest_row_ok() {
	local num='([0-9]+(\.[0-9]+)?|-?nan|inf)'
	[[ $1 =~ ^$2\ $3(\ $num){3,}$ ]]
}

# perftest_has_row FILE SIZE [ITERS]: FILE has a results row for SIZE
# bytes (x ITERS; any number of them if not given) with its figures
# (perftest_row_ok); it is then in PERFTEST_ROW.
perftest_has_row() {
	local row
	perftest_rows "$1"
	for row in "${PERFTEST_ROWS[@]}"; do
		if perftest_row_ok "$row" "$2" "${3:-[0-9]+}"; then
			PERFTEST_ROW=$row
			return 0
		fi
	done
	return 1
}

# perftest_value FILE COLUMN: "VALUE UNIT" from the result table perftest
# printed to FILE (its first row with a number in COLUMN), e.g.
# perftest_value x.txt BW_average -> "12.98 MB/sec", perftest_value x.txt
# t_typical -> "64.87 usec", perftest_value x.txt '#iterations' -> "1000 "
# (no unit). COLUMN is a name of PERFTEST_COLS. Nothing if there is no
# such figure.
perftest_value() {
	local i idx='' row f=()
	perftest_rows "$1"
	for i in "${!PERFTEST_COLS[@]}"; do
		[[ ${PERFTEST_COLS[i]} == "$2" ]] && { idx=$i; break; }
	done
	[[ -n $idx ]] || return 0
	for row in "${PERFTEST_ROWS[@]}"; do
		read -ra f <<<"$row"
		if [[ ${f[idx]:-} =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
			echo "${f[idx]} ${PERFTEST_UNITS[idx]}"
			return 0
		fi
	done
}

# ibv_wc_status names, for perftest's "Failed status N".
WC_STATUS=(SUCCESS LOC_LEN_ERR LOC_QP_OP_ERR LOC_EEC_OP_ERR LOC_PROT_ERR
	WR_FLUSH_ERR MW_BIND_ERR BAD_RESP_ERR LOC_ACCESS_ERR REM_INV_REQ_ERR
	REM_ACCESS_ERR REM_OP_ERR RETRY_EXC_ERR RNR_RETRY_EXC_ERR
	LOC_RDD_VIOL_ERR REM_INV_RD_REQ_ERR REM_ABORT_ERR INV_EECN_ERR
	INV_EEC_STATE_ERR FATAL_ERR RESP_TIMEOUT_ERR GENERAL_ERR)

# perftest_why FILE: " (perftest's complaint, the last size it reported)", or "".
perftest_why() {
	local msg st row
	msg=$(grep -ohE "Completion with error at [a-z]+|Couldn't [^.]*|Unable [^.]*|Failed to [^.]*" "$1" |
		head -n 1 || true)
	st=$(grep -ohE 'Failed status [0-9]+' "$1" | head -n 1 | grep -oE '[0-9]+$' || true)
	[[ -n $st ]] && msg+="${msg:+, }status $st IBV_WC_${WC_STATUS[st]:-?}"
	perftest_rows "$1"
	if ((${#PERFTEST_ROWS[@]})); then
		row=${PERFTEST_ROWS[-1]}
		msg+="${msg:+, }after the ${row%% *}-byte row"
	fi
	[[ -n $msg ]] && echo " ($msg)"
	return 0
}

# perftest_error FILE: a one-line reason why a perftest run failed (the
# first line that looks like an error), for reports.
perftest_error() {
	grep -m1 -iE 'fail|error|unable|couldn|not supported|timed out|never listened|correlation' "$1" 2>/dev/null |
		sed -E 's/^[[:space:]]+//; s/[[:space:]]+/ /g' | cut -c1-70 || true
}

# perftest_pair BASE SECS SNS SDEV SGID CNS CDEV CGID SADDR PROG [ARGS...]
#
# The perftest launcher of one guest: PROG's server on SDEV (GID index
# SGID) in namespace SNS ("" for the initial one), its client on
# CDEV/CGID in CNS connecting to SADDR, both with ARGS (and -F), on the
# next port; run, timed and reported on as local_run says (BASE-server.txt,
# BASE-client.txt; CLIENT_RC, SERVER_RC; 124: the client timed out, 125:
# the server never listened). Call it as `perftest_pair ... || rc=$?`.
#
# perftest calibrates its cycle counter against gettimeofday when it
# starts; on a busy host the fit can fail ("Correlation coefficient r^2 <
# 0.9") and every figure comes out "inf". Such a run is made again, up to
# PERFTEST_TRIES runs in all (default 2).
perftest_pair() {
	local base=$1 secs=$2 sns=$3 sdev=$4 sgid=$5 cns=$6 cdev=$7 cgid=$8 saddr=$9
	local prog=${10} try rc port SRV CLI
	shift 10
	for ((try = 1; ; try++)); do
		next_port port
		SRV=("$prog" -d "$sdev" -x "$sgid" -p "$port" -F "$@")
		CLI=("$prog" -d "$cdev" -x "$cgid" -p "$port" -F "$@" "$saddr")
		rc=0
		local_run "$base" "$secs" "$port" "$sns" "$cns" || rc=$?
		grep -q 'Correlation coefficient' "$base-client.txt" 2>/dev/null || break
		((try < ${PERFTEST_TRIES:-2})) || break
		echo "perftest_pair: $(basename "$base"): perftest's clock calibration failed" \
			"(busy host?); running it again" >&2
	done
	return "$rc"
}

# local_perftest NAME SIZE TOOL ARGS...: perftest TOOL between the
# rdma_pair ends (perftest_pair, one try): server on $SDEV, client on
# $CDEV; the client must exit 0 within $TOOL_TIMEOUT seconds (default
# 120), the server right after it, and both must show the results row
# for message size SIZE (ib_read_lat's and ib_atomic_lat's server: the
# remote address). Outputs: $RESULTS/NAME-{server,client}.txt.
local_perftest() {
	local name=$1 size=$2 tool=$3 base=$RESULTS/$1 rc=0 t0=$SECONDS
	shift 3
	local tmo=${TOOL_TIMEOUT:-120} srv=$base-server.txt cli=$base-client.txt

	log "$name: $tool $*"
	PERFTEST_TRIES=1 perftest_pair "$base" "$tmo" "" "$SDEV" "$SG" "${CNETNS:-}" \
		"$CDEV" "$CG" "$SADDR" "$tool" "$@" || rc=$?
	if ((rc)); then
		# perftest may die mid-line: end each with a newline, so that
		# the FAIL line starts one.
		echo "---- $name client (exit $CLIENT_RC)"; tail -n 30 "$cli"; echo
		echo "---- $name server (exit $SERVER_RC)"; tail -n 30 "$srv"; echo
		show_counters "$SDEV" "$CDEV"
		((rc == 125)) && fail "$name: the server never listened$(perftest_why "$srv")"
		if timed_out "$CLIENT_RC" || timed_out "$SERVER_RC"; then
			fail "$name: timed out after ${tmo}s (client $CLIENT_RC, server $SERVER_RC)"
		fi
		((SERVER_RC == 143 && CLIENT_RC == 0)) &&
			fail "$name: the server was still running 15 s after the client (killed)"
		fail "$name: client exit $CLIENT_RC$(perftest_why "$cli"), server exit $SERVER_RC$(perftest_why "$srv")"
	fi
	perftest_has_row "$cli" "$size" ||
		{ cat "$cli"; echo; fail "$name: client shows no $size-byte row"; }
	if [[ $tool == ib_read_lat || $tool == ib_atomic_lat ]]; then
		# Its server only serves the requests: no table, just the QPs.
		grep -q 'remote address:' "$srv" ||
			{ cat "$srv"; echo; fail "$name: server shows no remote address"; }
	else
		perftest_has_row "$srv" "$size" ||
			{ cat "$srv"; echo; fail "$name: server shows no $size-byte row"; }
	fi
	log "$name: ok in $((SECONDS - t0))s"
}

# --- forged packets ----------------------------------------------------------------
#
# The trust cases (rx-not-peer, rx-not-peer-wire) forge RoCE packets, as
# an ordinary user with an ordinary UDP socket (tests/guest/progs/
# roce_forge), for the QPs of a victim program (peer_victim, wire_victim).
# The victim names each QP on a line "WORD NAME qpn=QPN psn=PSN va=VA
# rkey=RKEY": its number, the PSN it expects next, the address and rkey of
# its buffer open to remote writes. QP names end in 4 (IPv4) or 6 (IPv6);
# uc* and ctl6 are UC QPs, the others RC; ctl4 and ctl6 are the controls,
# whose peer's address the forger may use.

FORGE_COUNT=17				# the expected PSN and the 16 after it
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
FORGED=0				# packets forge_packets sent

# victim_qps WORD FILE WHOSE: QPN, PSN, VA and RKEY (associative arrays,
# by QP name) from FILE's WORD lines; logs each QP as WHOSE.
victim_qps() {
	local word name qpn psn va rkey
	declare -gA QPN=() PSN=() VA=() RKEY=()
	while read -r word name qpn psn va rkey; do
		[[ $word == "$1" ]] || continue
		QPN[$name]=${qpn#qpn=} PSN[$name]=${psn#psn=}
		VA[$name]=${va#va=} RKEY[$name]=${rkey#rkey=}
		log "$3 $name: QPN ${QPN[$name]}, expected PSN ${PSN[$name]}"
	done <"$2"
}

# forge_run NETNS WHAT COUNT LINE...: the roce_forge command LINEs (no
# blanks in any of their words) in one shell, as nobody in network
# namespace NETNS ("": this one): every process costs a loaded guest.
# Fails, naming WHAT, unless each printed "sent COUNT".
forge_run() {
	local what=$2 count=$3 ns=() out
	[[ -n $1 ]] && ns=(ip netns exec "$1")
	shift 3
	out=$(printf '%s\n' "$@" | run_timeout 30 "${ns[@]}" "${NOBODY[@]}" bash -e 2>&1) ||
		{ echo "$out"; fail "roce_forge $what failed"; }
	[[ $(grep -cx "sent $count" <<<"$out") == "$#" ]] ||
		{ echo "$out"; fail "roce_forge $what: not $# times 'sent $count'"; }
}

# forge_packets NETNS SRC4 SRC6 DST4 DST6 NAME...: for each victim QP NAME
# (victim_qps), FORGE_COUNT SENDs and as many RDMA WRITEs into its buffer
# from its expected PSN on, from SRC4 to DST4 for the IPv4 ones, from
# SRC6 to DST6 for the IPv6 ones (forge_run). Adds them to FORGED.
forge_packets() {
	local netns=$1 src4=$2 src6=$3 dst4=$4 dst6=$5 name src dst six uc cmd cmds=() what
	shift 5
	for name in "$@"; do
		if [[ $name == *6 ]]; then
			src=$src6 dst=$dst6 six=-6
		else
			src=$src4 dst=$dst4 six=
		fi
		uc=
		[[ $name == uc* ]] && uc=--uc
		cmd="$PROGS/roce_forge $six --src $src --dst $dst --qpn ${QPN[$name]}"
		cmd+=" --psn ${PSN[$name]} --count $FORGE_COUNT $uc"
		cmds+=("$cmd --op send")
		cmds+=("$cmd --op write --rkey ${RKEY[$name]} --va ${VA[$name]}")
	done
	what="from $src4 and $src6${netns:+ (namespace $netns)}"
	forge_run "$netns" "$what" "$FORGE_COUNT" "${cmds[@]}"
	FORGED=$((FORGED + ${#cmds[@]} * FORGE_COUNT))
	log "forged $((${#cmds[@]} * FORGE_COUNT)) packets $what"
}

# forge_controls NETNS SRC4 SRC6 DST4 DST6: for the victim's controls,
# from the addresses their QPs are connected to (ctl4: SRC4 to DST4, RC;
# ctl6: SRC6 to DST6, UC), one SEND at the expected PSN and one RDMA
# WRITE at the next (forge_run); these must be taken.
forge_controls() {
	local forger=$PROGS/roce_forge c4 c6 next4 next6
	c4="$forger --src $2 --dst $4 --qpn ${QPN[ctl4]}"
	c6="$forger -6 --src $3 --dst $5 --qpn ${QPN[ctl6]} --uc"
	next4=$(((PSN[ctl4] + 1) & 0xffffff)) next6=$(((PSN[ctl6] + 1) & 0xffffff))
	forge_run "$1" "for the controls" 1 \
		"$c4 --psn ${PSN[ctl4]} --op send" \
		"$c4 --psn $next4 --op write --rkey ${RKEY[ctl4]} --va ${VA[ctl4]}" \
		"$c6 --psn ${PSN[ctl6]} --op send" \
		"$c6 --psn $next6 --op write --rkey ${RKEY[ctl6]} --va ${VA[ctl6]}"
}
