#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest over RC between two devices: several QPs, both directions at
# once, an 8 MiB READ, and the ibv_post_send path (see rc-perftest.sh,
# which does the work).
# shellcheck disable=SC2034 # read by rc-perftest.sh
PERF_SET=modes
. "$(dirname "$0")/rc-perftest.sh"
