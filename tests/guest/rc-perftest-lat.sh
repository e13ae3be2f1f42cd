#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest latency over RC between two devices: ib_write_lat, ib_send_lat
# and ib_read_lat over all message sizes (see rc-perftest.sh, which does
# the work).
# shellcheck disable=SC2034 # read by rc-perftest.sh
PERF_SET=lat
. "$(dirname "$0")/rc-perftest.sh"
