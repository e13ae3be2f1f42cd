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

fail() {
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

# wait_until SECS WHAT CMD...: poll CMD until it succeeds, fail after SECS.
wait_until() {
	local secs=$1 what=$2 end
	shift 2
	end=$((SECONDS + secs))
	until "$@"; do
		((SECONDS < end)) || fail "timed out after ${secs}s waiting for $what"
		sleep 0.2
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

# signal NAME: tell the peer we reached NAME.
signal() { touch "$SHARED/$ROLE.$1"; }

# wait_peer NAME [SECS]: wait until the peer signalled NAME.
wait_peer() {
	local peer=B
	[[ $ROLE == B ]] && peer=A
	wait_until "${2:-60}" "peer $peer to reach '$1'" test -e "$SHARED/$peer.$1"
}

# setup_wire: address eth0 and bring it up.
setup_wire() {
	ip addr add "$MY_IP/24" dev eth0
	ip -6 addr add "$MY_IP6/64" dev eth0 nodad
	ip link set eth0 up
	wait_until 10 "eth0 carrier" grep -qx 1 /sys/class/net/eth0/carrier
}
