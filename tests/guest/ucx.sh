#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UCX (stock Debian 1.13) on the device, with its own verbs transports:
# ucx_perftest tag_bw, tag_lat, stream_bw, ucp_put_bw and ucp_get over
# rc_verbs (ud_verbs only to wire up) and over ud_verbs, between the
# rdma_pair ends, some on IPv4 GIDs and some on IPv6 GIDs; and
# tests/guest/progs/ucp_verify, connected by the rdma_cm, which checks
# the bytes of tagged messages and of puts and gets from 1 B to 4 MiB.
# UCX's UD transport needs wc.sl to tell IPv4 from IPv6 and must not
# send flow labels above 20 bits: a UD endpoint that gets no answer
# aborts the process ("unhandled timeout error").
# On sroce, then UCX on on-demand paging (ODP) regions: ucx_perftest -B
# (buffers mapped non-blocking, which UCX registers on demand) and
# ucp_verify over UCX's one implicit ODP key (see the end).
#
# rdma_rxe: its wc.sl is always 0, which UCX reads as IPv6: ud_verbs on
# an IPv4 GID drops every packet, and rc_verbs cannot wire up through it.
# On rxe the ucx_perftest runs use IPv6 GIDs only.
. "$(dirname "$0")/lib.sh"

UCX_ITERS=100
TLS_RC=rc_verbs,ud_verbs:aux
TLS_UD=ud_verbs
UCX_PORT=13500

load_sroce
rdma_pair 1500
SG6=$(wait_roce_gid 10 "$SDEV" 2001:db8::1) || fail "no RoCE v2 GID for 2001:db8::1"
CADDR6=2001:db8::2
[[ $SROCE_IMPL == rxe ]] && CADDR6=2001:db8::1
CG6=$(wait_roce_gid 10 "$CDEV" "$CADDR6") || fail "no RoCE v2 GID for $CADDR6"

# ucx_final FILE: UCX_FINAL=(iterations ... bandwidth msg-rate) of the
# "Final:" row the client printed, in the table's order.
ucx_final() {
	local line
	line=$(grep -m1 '^Final:' "$1") || return 1
	# Numbers only: split on blanks, nothing to glob.
	# shellcheck disable=SC2206
	UCX_FINAL=(${line#Final:})
}

# ucx_pair NAME TLS GIDS TEST SIZE: ucx_perftest TEST with SIZE-byte
# messages and $UCX_ITERS iterations, server on SDEV, client on CDEV,
# over UCX_TLS=TLS and the GIDs of family GIDS (4 or 6). Both exit 0;
# the client reports every iteration, a non-zero bandwidth and message
# rate, and that its endpoint used the transport asked for on CDEV.
# UCX_ENV (an array of VAR=VALUE) goes to both sides' environment and
# PERF_ARGS to both command lines.
UCX_ENV=() PERF_ARGS=()
ucx_pair() {
	local name=$1 tls=$2 fam=$3 test=$4 size=$5 port=$((UCX_PORT++))
	local srv=$RESULTS/$name-server.txt cli=$RESULTS/$name-client.txt
	local sg=$SG cg=$CG spid src=0 crc=0 t0=$SECONDS tl=${2%%,*}
	local args=(-t "$test" -s "$size" -n "$UCX_ITERS" -w 10 -p "$port" "${PERF_ARGS[@]}")

	[[ $fam == 6 ]] && sg=$SG6 cg=$CG6
	log "$name: ucx_perftest ${args[*]}, UCX_TLS=$tls, GIDs $sg/$cg"
	env "${UCX_ENV[@]}" UCX_NET_DEVICES="$SDEV:1" UCX_TLS="$tls" UCX_IB_GID_INDEX="$sg" \
		timeout -k 5 90 stdbuf -oL -eL ucx_perftest "${args[@]}" >"$srv" 2>&1 &
	spid=$!
	wait_until 30 "$name: server listening on $port" listening_or_gone "$spid" "$port"
	"${CNS[@]}" env "${UCX_ENV[@]}" UCX_NET_DEVICES="$CDEV:1" UCX_TLS="$tls" \
		UCX_IB_GID_INDEX="$cg" UCX_LOG_LEVEL=info timeout -k 5 60 stdbuf -oL -eL \
		ucx_perftest "${args[@]}" "$SADDR" >"$cli" 2>&1 || crc=$?
	((crc == 0)) || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if ((crc || src)); then
		echo "---- $name client (exit $crc)"; grep -v '^ *[0-9]*  */' "$cli" | tail -n 20
		echo "---- $name server (exit $src)"; grep -v '^ *[0-9]*  */' "$srv" | tail -n 10
		show_counters "$SDEV" "$CDEV"
		fail "$name: client exit $crc, server exit $src$(grep -m1 -ohE 'Fatal: .*|ERROR .*' "$cli" | sed 's/^/: /')"
	fi
	ucx_final "$cli" || { cat "$cli"; fail "$name: no 'Final:' row"; }
	assert_eq "${UCX_FINAL[0]}" "$UCX_ITERS" "$name: iterations"
	# ... bandwidth average, overall; message rate average, overall.
	[[ ${UCX_FINAL[5]} =~ ^[0-9.]+$ && ${UCX_FINAL[5]} != 0.00 && ${UCX_FINAL[7]} -gt 0 ]] ||
		fail "$name: bandwidth ${UCX_FINAL[5]} MB/s, ${UCX_FINAL[7]} msg/s"
	grep -qE "ep_cfg\[[0-9]+\]: .*\($tl/$CDEV:1" "$cli" ||
		{ grep 'ep_cfg' "$cli"; fail "$name: the endpoint does not use $tl/$CDEV:1"; }
	log "$name: ok in $((SECONDS - t0))s, ${UCX_FINAL[5]} MB/s, ${UCX_FINAL[7]} msg/s"
}

# verify NAME TLS ADDR: ucp_verify, server on SDEV bound to ADDR (one of
# SDEV's), client on CDEV, connected through the rdma_cm; both end "all
# ok" (UCX_ENV as for ucx_pair).
verify() {
	local name=$1 tls=$2 addr=$3 port=$((UCX_PORT++)) spid src=0 crc=0 t0=$SECONDS
	local srv=$RESULTS/$name-server.txt cli=$RESULTS/$name-client.txt
	local ucx=(UCX_TLS="$tls" UCX_SOCKADDR_TLS_PRIORITY=rdmacm "${UCX_ENV[@]}")

	log "$name: ucp_verify, UCX_TLS=$tls, server $addr"
	env "${ucx[@]}" UCX_NET_DEVICES="$SDEV:1" \
		timeout -k 5 150 "$PROGS/ucp_verify" -p "$port" -b "$addr" >"$srv" 2>&1 &
	spid=$!
	wait_until 30 "$name: rdma_cm listening on $port" cm_listening_or_gone "$spid" "$port"
	"${CNS[@]}" env "${ucx[@]}" UCX_NET_DEVICES="$CDEV:1" timeout -k 5 120 \
		"$PROGS/ucp_verify" -p "$port" "$addr" >"$cli" 2>&1 || crc=$?
	((crc == 0)) || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if ((crc || src)); then
		echo "---- $name client (exit $crc)"; tail -n 20 "$cli"
		echo "---- $name server (exit $src)"; tail -n 20 "$srv"
		show_counters "$SDEV" "$CDEV"
		fail "$name: client exit $crc, server exit $src: $(grep -hm1 '^FAIL' "$cli" "$srv")"
	fi
	grep -q '^ucp_verify all ok' "$cli" || { cat "$cli"; fail "$name: client not all ok"; }
	grep -q '^ucp_verify all ok' "$srv" || { cat "$srv"; fail "$name: server not all ok"; }
	log "$name: ok in $((SECONDS - t0))s, $(grep -cE '^\[ *[0-9.]+s\] ok' "$cli") checks"
}

# TEST:SIZE:FAMILY; the flow label and wc.sl matter for both families.
runs=(tag_bw:65536:4 tag_lat:4096:6 stream_bw:65536:4 ucp_put_bw:65536:6 ucp_get:65536:4)
[[ $SROCE_IMPL == rxe ]] && log "rxe quirk: wc.sl is 0, ucx_perftest on IPv6 GIDs only"
for r in "${runs[@]}"; do
	IFS=: read -r t size fam <<<"$r"
	[[ $SROCE_IMPL == rxe ]] && fam=6
	ucx_pair "rc-$t" "$TLS_RC" "$fam" "$t" "$size"
	ucx_pair "ud-$t" "$TLS_UD" "$fam" "$t" "$size"
done

verify verify-rc rc_verbs 192.0.2.1
verify verify-ud ud_verbs 2001:db8::1

# odp_faults_sum: both devices' hw counter odp_faults, added up.
odp_faults_sum() {
	echo $(($(port_counter "$SDEV" odp_faults) + $(port_counter "$CDEV" odp_faults)))
}

# UCX on ODP (sroce only: rxe has none on these kernels). UCX 1.13 has no
# UCX_REG_NONBLOCK_MEM_TYPES (1.15 added it); its equivalents are
# registration with the non-blocking flag, which is ODP up to
# UCX_IB_ODP_MAX_SIZE (ucx_perftest -B: its buffers are mapped so), and
# the "odp" registration method, one implicit ODP region (NULL, SIZE_MAX)
# for all of a process's memory, which UCX takes only if the device says
# IBV_ODP_SUPPORT_IMPLICIT. The first: ucp_put_bw and tag_bw on ODP
# buffers; the second: ucp_verify's every byte over it, and UCX says it
# used that global key. Each must fault pages in on the devices.
if [[ $SROCE_IMPL == sroce ]]; then
	f0=$(odp_faults_sum)
	UCX_ENV=(UCX_IB_ODP_MAX_SIZE=1g) PERF_ARGS=(-B)
	ucx_pair odp-rc-ucp_put_bw "$TLS_RC" 4 ucp_put_bw 65536
	ucx_pair odp-rc-tag_bw "$TLS_RC" 4 tag_bw 65536
	f1=$(odp_faults_sum)
	((f1 > f0)) || fail "ucx_perftest -B: odp_faults stayed at $f1"
	log "ucx_perftest -B (ODP buffers): odp_faults +$((f1 - f0))"
	UCX_ENV=(UCX_IB_REG_METHODS=odp UCX_LOG_LEVEL=debug) PERF_ARGS=()
	verify odp-verify-rc rc_verbs 192.0.2.1
	f2=$(odp_faults_sum)
	((f2 > f1)) || fail "ucp_verify on the implicit ODP key: odp_faults stayed at $f2"
	for side in server client; do
		grep -q 'using odp global key' "$RESULTS/odp-verify-rc-$side.txt" ||
			fail "ucp_verify $side: UCX did not use its global (implicit) ODP key"
	done
	log "ucp_verify on UCX's implicit ODP key: odp_faults +$((f2 - f1))"
	UCX_ENV=()
fi

rdma_pair_done
