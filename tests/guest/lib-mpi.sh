# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI across a guest pair (tests/guest2/mpi-wire, scripts/bench-mpi.sh),
# sourced after lib.sh: guest B runs an ssh daemon for guest A's key
# (mpi_peer_up), guest A runs mpirun with one rank in each guest
# (mpi_launcher_up, mpi_run). Keys are made here, per boot; nothing of the
# host's is used.

SSH_PORT=2222

# sshd_up: an ssh daemon on our wire address that lets in root with the
# key guest A made, and nothing else (no password, no PAM).
sshd_up() {
	local d=/run/sshd-mpi
	mkdir -p /run/sshd "$d" /root/.ssh
	chmod 700 /root/.ssh
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
	cp "$SHARED/mpi_key.pub" /root/.ssh/authorized_keys
	chmod 600 /root/.ssh/authorized_keys
	cat >"$d/sshd_config" <<-EOF
		Port $SSH_PORT
		ListenAddress $MY_IP
		HostKey $d/host_key
		PidFile $d/sshd.pid
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		AuthorizedKeysFile /root/.ssh/authorized_keys
	EOF
	/usr/sbin/sshd -f "$d/sshd_config" -E "$RESULTS/sshd.log" ||
		fail "sshd did not start: $(cat "$RESULTS/sshd.log")"
	wait_until 20 "sshd listening on $SSH_PORT" listening_or_gone 1 "$SSH_PORT"
}

# mpi_peer_up: guest B's part: once guest A's key is there, the ssh
# daemon mpirun reaches us through.
mpi_peer_up() {
	wait_peer mpi-key 60
	sshd_up
	signal mpi-sshd
}

mpi_peer_down() { kill "$(cat /run/sshd-mpi/sshd.pid)"; }

# mpi_launcher_up: guest A's part: our key for guest B's ssh daemon, and
# a first ssh to it (MPI_PEER_HOST: the peer's host name).
mpi_launcher_up() {
	ssh_setup
	signal mpi-key
	wait_peer mpi-sshd 60
	MPI_PEER_HOST=$(run_timeout 30 ssh "$PEER_IP" hostname) || fail "ssh to the peer"
	[[ -n $MPI_PEER_HOST && $MPI_PEER_HOST != "$(hostname)" ]] ||
		fail "ssh to the peer: hostname '$MPI_PEER_HOST'"
}

# ssh_setup: our key pair, and an ssh configuration that uses it for the
# peer (what mpirun's launcher runs: plain "ssh PEER orted ...").
ssh_setup() {
	mkdir -p /root/.ssh
	chmod 700 /root/.ssh
	ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_mpi
	cp /root/.ssh/id_mpi.pub "$SHARED/mpi_key.pub"
	cat >/root/.ssh/config <<-EOF
		Host $PEER_IP
		    Port $SSH_PORT
		    IdentityFile /root/.ssh/id_mpi
		    StrictHostKeyChecking no
		    UserKnownHostsFile /dev/null
		    BatchMode yes
		    LogLevel ERROR
	EOF
}

# mpi_run NAME SECS ucx|tcp ARGS...: mpi_verify ARGS, one rank here and
# one on the peer, over UCX on RDMA device $dev (GID index $gid) or over
# Open MPI's own TCP transport on eth0; output in $RESULTS/NAME.txt
# (MPI_OUT).
mpi_run() {
	local name=$1 secs=$2 how=$3 rc=0 via
	shift 3
	MPI_OUT=$RESULTS/$name.txt
	case $how in
	ucx)	via=(--mca pml ucx --mca osc ucx --mca pml_ucx_devices any
		     --mca btl self
		     -x UCX_NET_DEVICES="$dev:1" -x UCX_IB_GID_INDEX="$gid"
		     -x UCX_TLS=self,rc_verbs,ud_verbs:aux -x UCX_LOG_LEVEL=info) ;;
	tcp)	via=(--mca pml ob1 --mca btl self,tcp --mca osc rdma
		     --mca btl_tcp_if_include eth0) ;;
	*)	fail "mpi_run: no transport '$how'" ;;
	esac
	timeout -k 10 "$secs" mpirun --allow-run-as-root -np 2 \
		--host "$MY_IP:1,$PEER_IP:1" --mca oob_tcp_if_include eth0 \
		"${via[@]}" "$PROGS/mpi_verify" "$@" >"$MPI_OUT" 2>&1 || rc=$?
	if ((rc != 0)); then
		sed 's/^/  | /' "$MPI_OUT"
		fail "$name: mpirun exited with status $rc"
	fi
}
