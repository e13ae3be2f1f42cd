#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Checks every RoCE v2 datagram of a pcap file (Ethernet, IPv4 or IPv6, UDP
port 4791) against the wire rules, with nothing of the driver's code:
the ICRC with zlib's CRC-32 over the masked headers (IBTA Vol. 1 annex
A17.5.1), the UDP length, the IPv4 total length and header checksum, the
UDP checksum (zero, or correct), and that each datagram is one packet.

Prints one line per problem, then a summary line
    roce_pcap_check: N packets (N IPv6), N bad ICRC, N bad other, N non-zero UDP csum
and exits 0 only if every packet is good and at least one was seen.
--flip-byte N corrupts byte N of each packet's BTH payload first, to show
that the checker can fail.
"""
import struct
import sys
import zlib

ROCE_PORT = 4791


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def read_pcap(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            end = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            end = ">"
        else:
            raise SystemExit("not a pcap file: %s" % path)
        linktype = struct.unpack(end + "I", hdr[20:24])[0]
        if linktype != 1:
            raise SystemExit("link type %d, want Ethernet (1)" % linktype)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl, orig = struct.unpack(end + "II", rec[8:16])
            data = f.read(incl)
            if incl != orig:
                raise SystemExit("truncated capture (snaplen): use -s 0")
            yield data


def check_packet(frame, flip):
    """Returns (is_roce, problems, udp_csum_nonzero)."""
    off = 12
    ethertype = struct.unpack("!H", frame[off:off + 2])[0]
    off += 2
    while ethertype == 0x8100:
        ethertype = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += 4
    problems = []
    if ethertype == 0x0800:
        ip = frame[off:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != 17:
            return False, [], False
        tot_len = struct.unpack("!H", ip[2:4])[0]
        if ones_sum(ip[:ihl]) != 0xFFFF:
            problems.append("IPv4 header checksum")
        l3 = bytearray(ip[:ihl])
        l3[1] = 0xFF                    # type of service
        l3[8] = 0xFF                    # time to live
        l3[10:12] = b"\xff\xff"         # header checksum
        udp = ip[ihl:tot_len]
        if tot_len > len(ip):
            problems.append("IPv4 total length %d > %d" % (tot_len, len(ip)))
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp))
    elif ethertype == 0x86DD:
        ip = frame[off:]
        if ip[6] != 17:
            return False, [], False
        plen = struct.unpack("!H", ip[4:6])[0]
        l3 = bytearray(ip[:40])
        l3[0] |= 0x0F                   # traffic class, flow label (not
        l3[1:4] = b"\xff\xff\xff"        # the version)
        l3[7] = 0xFF                    # hop limit
        udp = ip[40:40 + plen]
        if 40 + plen > len(ip):
            problems.append("IPv6 payload length %d > %d" % (plen, len(ip) - 40))
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(udp), 17)
    else:
        return False, [], False
    dport = struct.unpack("!H", udp[2:4])[0]
    if dport != ROCE_PORT:
        return False, [], False
    ulen, ucsum = struct.unpack("!HH", udp[4:8])
    if ulen != len(udp):
        problems.append("UDP length %d, datagram %d" % (ulen, len(udp)))
    if ucsum and ones_sum(pseudo + bytes(udp)) != 0xFFFF:
        problems.append("UDP checksum")
    bth = bytearray(udp[8:])
    if len(bth) < 16:
        return True, problems + ["shorter than a BTH and ICRC"], bool(ucsum)
    if flip is not None and 12 + flip < len(bth) - 4:
        bth[12 + flip] ^= 0x01
    masked_udp = bytearray(udp[:8])
    masked_udp[6:8] = b"\xff\xff"       # UDP checksum
    masked_bth = bytearray(bth[:-4])
    masked_bth[4] = 0xFF                # BTH resv8a
    crc = zlib.crc32(b"\xff" * 8 + bytes(l3) + bytes(masked_udp) +
                     bytes(masked_bth))
    icrc = struct.unpack("<I", bytes(bth[-4:]))[0]
    if crc != icrc:
        problems.append("ICRC %08x, computed %08x (opcode 0x%02x psn %d)" %
                        (icrc, crc, bth[0],
                         struct.unpack("!I", bytes(bth[8:12]))[0] & 0xFFFFFF))
    return True, problems, bool(ucsum)


def main():
    args = sys.argv[1:]
    flip = None
    if len(args) == 3 and args[0] == "--flip-byte":
        flip = int(args[1])
        args = args[2:]
    if len(args) != 1:
        raise SystemExit("usage: roce_pcap_check.py [--flip-byte N] FILE.pcap")
    n = n6 = bad_icrc = bad_other = nonzero = 0
    for frame in read_pcap(args[0]):
        is_roce, problems, csum = check_packet(frame, flip)
        if not is_roce:
            continue
        n += 1
        n6 += frame[12:14] == b"\x86\xdd"
        nonzero += csum
        for p in problems:
            print("packet %d: %s" % (n, p))
        if any(p.startswith("ICRC") for p in problems):
            bad_icrc += 1
        if any(not p.startswith("ICRC") for p in problems):
            bad_other += 1
    print("roce_pcap_check: %d packets (%d IPv6), %d bad ICRC, %d bad other, "
          "%d non-zero UDP csum" % (n, n6, bad_icrc, bad_other, nonzero))
    sys.exit(0 if n and not bad_icrc and not bad_other else 1)


if __name__ == "__main__":
    main()
