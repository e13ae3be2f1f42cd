#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Object and size limits (tests/guest/progs/limits.c): what query_device
# reports is what is enforced, objects up to each maximum then ENOMEM,
# thousands of QPs, tens of thousands of MRs; the kernel log stays clean
# (the device's counts of live objects are exact: each maximum is reached
# exactly, with the process's own PD and the kernel users' counted).
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case (rdma_rxe has other limits)"; exit 0; }

make_veth
load_sroce
link_add sroce0 veth0
gid=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no IPv4 GID"

# PDs of kernel users (the MAD layer's, one per device), which count too.
kpds=$(rdma res show pd dev sroce0 | grep -c 'comm \[') || true
assert_match "$kpds" '^[1-9][0-9]*$' "kernel PDs on sroce0 (the MAD layer has one)"
run_prog limits 270 limits sroce0 "$gid" "$kpds"

unload_sroce
log "ok"
