#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild-mirror.sh TOP OUT
#
# Make OUT a mirror of the module's sources in the tree at TOP (the driver
# directory and the wire layer's headers in include/sroce/, at the same
# paths under OUT, where Kbuild looks for the headers), made of symlinks:
# kbuild then writes its objects under OUT and never in the tree. Links to
# files that are gone are removed, new sources get theirs. Nothing to do
# when OUT is TOP (the default kernel builds in the tree).
set -euo pipefail

top=$(cd "$1" && pwd)
out=$2
[[ $(cd "$out" 2>/dev/null && pwd) == "$top" ]] && exit 0

for d in drivers/infiniband/sw/sroce include/sroce; do
	mkdir -p "$out/$d"
	for f in "$top/$d"/Kbuild "$top/$d"/*.[ch]; do
		[[ -e $f ]] || continue
		l=$out/$d/$(basename "$f")
		# modpost's output, not a source: through a link, the other
		# kernel's modpost would write the tree's and spoil its module.
		if [[ $f == *.mod.c ]]; then
			[[ -L $l ]] && rm -f "$l"
			continue
		fi
		[[ $(readlink "$l" 2>/dev/null) == "$f" ]] || ln -sfn "$f" "$l"
	done
	# Dangling links: sources removed or renamed since the last build.
	find "$out/$d" -maxdepth 1 -xtype l -delete
done
