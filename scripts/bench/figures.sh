# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# What the benchmarks (scripts/bench.sh, scripts/bench-wire.sh) share:
# their figures file, written in the guest, and the tables that compare
# its figures, printed on the host. Sourced by both.
#
# A figures file has one line a figure, tab-separated:
#
#	RUN TEST METRIC VALUE UNIT NOTE [ROUND]
#
# RUN names what was measured (a driver and a setup: rxe, sroce-pair,
# sroce-netem-1500, tcp-clean-1500...; no "/" or "=" in it), TEST the
# program (ib_write_bw, iperf3...), METRIC the figure (perftest's column:
# BW_average, t_typical, t_avg; or rtt_median, throughput,
# pkts_per_crossing...). VALUE is a number, or FAILED or SKIPPED with NOTE
# saying why; UNIT is as the program prints it. Metrics named t_* or rtt_*
# are latencies (less is better), pkts_* counts of packets (more is
# better), the others bandwidths (more is better). ROUND is there when a
# bench measures the same figures several times in one boot (bench-wire.sh:
# 1, 2, ...), each once a round; a file without it has one round. The lines
# may come in any order, and from more than one file put together.
#
# A figure of one round is shown as it was recorded. A figure of several
# rounds is shown as the median of their numbers and the range of them,
# "35.4 (31.0-38.2)", rounded to about three digits. A ratio of two
# figures is computed within each round that has both, and shown as the
# median and range of those ratios, with two decimals. A "*" after
# either: some rounds gave no number (FAILED or SKIPPED), the median is of
# those that did.

# record RUN TEST METRIC VALUE [UNIT [NOTE]]: one line of $FIGURES, with
# the round FIGURES_ROUND if that is set.
record() {
	if [[ -n ${FIGURES_ROUND:-} ]]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" "${6:-}" \
			"$FIGURES_ROUND" >>"$FIGURES"
	else
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" "${6:-}" >>"$FIGURES"
	fi
}

# The awk side. Each line is read into fig[KEY, ROUND], KEY being
# key(RUN, TEST, METRIC); the rounds of KEY, in the order first seen, are
# rounds[KEY, 1..nround[KEY]] (a figure recorded twice in a round: the
# last one counts), and unit[TEST, METRIC] is its unit. Then
# cell(run, test, metric) or cellk(KEY) is what a table shows of a figure
# ("-" if there is none), ratiok(KEYA, KEYB, lat) what it shows of how
# much better A is than B (B/A for a latency, A/B otherwise; "-" if no
# round has two numbers), ratio(a, b, lat) the same of two numbers of one
# round, num(x) whether x is a number, lat(metric) whether it is a
# latency, and kind(metric) its kind: "lat", "pkts" or "bw".
# shellcheck disable=SC2016 # awk, not shell
FIGURES_AWK='
function num(x) { return x ~ /^[0-9]+(\.[0-9]+)?$/ }
function lat(m) { return m ~ /^(t|rtt)_/ }
function kind(m) { return lat(m) ? "lat" : m ~ /^pkts_/ ? "pkts" : "bw" }
function key(r, t, m) { return r SUBSEP t SUBSEP m }
function ratio(a, b, l) {
	if (!num(a) || !num(b) || (l ? a : b) + 0 == 0) return "-"
	return sprintf("%.2f", l ? b / a : a / b)
}
# spread(x, n, d, partial): "median (min-max)" of the numbers x[1..n]
# (sorted here), or the one number if n is 1; d decimals, or if d < 0
# enough for about three digits; "*" after it if partial.
function spread(x, n, d, partial,   i, j, v, med, f, s) {
	for (i = 2; i <= n; i++) {
		v = x[i]
		for (j = i - 1; j >= 1 && x[j] > v; j--) x[j + 1] = x[j]
		x[j + 1] = v
	}
	med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	if (d < 0) d = med >= 100 ? 0 : med >= 10 ? 1 : 2
	f = "%." d "f"
	s = sprintf(f, med)
	if (n > 1) s = s " (" sprintf(f, x[1]) "-" sprintf(f, x[n]) ")"
	return s (partial ? "*" : "")
}
# A figure: as recorded if it has one round; else the spread of the
# rounds that gave a number, or if none did, FAILED if one of them failed.
function cellk(k,   i, n, v, x, miss) {
	if (!(k in nround)) return "-"
	if (nround[k] == 1) return fig[k, rounds[k, 1]]
	n = 0
	miss = ""
	for (i = 1; i <= nround[k]; i++) {
		v = fig[k, rounds[k, i]]
		if (num(v)) x[++n] = v + 0
		else if (miss != "FAILED") miss = v
	}
	return n ? spread(x, n, -1, n < nround[k]) : miss
}
function cell(r, t, m) { return cellk(key(r, t, m)) }
# A ratio: its value in each round with both numbers, then their spread.
function ratiok(ka, kb, l,   i, n, rd, a, b, x) {
	if (!(ka in nround) || !(kb in nround)) return "-"
	n = 0
	for (i = 1; i <= nround[ka]; i++) {
		rd = rounds[ka, i]
		if (!((kb, rd) in fig)) continue
		a = fig[ka, rd]
		b = fig[kb, rd]
		if (ratio(a, b, l) != "-") x[++n] = l ? b / a : a / b
	}
	if (!n) return "-"
	return spread(x, n, 2, n < nround[ka] || n < nround[kb])
}
{
	k = key($1, $2, $3)
	if (!((k, $7) in fig)) rounds[k, ++nround[k]] = $7
	fig[k, $7] = $4
	if ($5 != "") unit[$2, $3] = $5
}
'

# figure FIGURES RUN TEST METRIC: that figure as a table shows it ("-" if
# there is none).
figure() {
	awk -F'\t' -v r="$2" -v t="$3" -v m="$4" "$FIGURES_AWK"'
	END { print cell(r, t, m) }' "$1"
}

# has_figures FIGURES ERE: some run whose name matches ERE has a figure
# that is a number.
has_figures() {
	awk -F'\t' -v re="$2" '$1 ~ re && $4 ~ /^[0-9]+(\.[0-9]+)?$/ { ok = 1 }
	END { exit !ok }' "$1"
}

# print_table FIGURES ROWS COLUMN...: a table of FIGURES, one row per
# "TEST METRIC SIZE" of ROWS (;-separated): its test, size and figure
# (unit, and "average" or "typical"), then a column per COLUMN,
# "HEADER=WHAT". WHAT is RUN: the row's figure of RUN ("-" if none); or
# "RUN TEST METRIC": that one figure, on the rows of its kind (bandwidth,
# latency or packet count) only; or "A/B", A and B each one of those two:
# the ratio of A's figure to B's, round by round, above 1 where A is
# better (A/B for a bandwidth or count, B/A for a latency). A row with no
# figure of a run in it is left out. Figures and ratios of several rounds
# show as median (range): see above.
print_table() {
	local file=$1 rows=$2 cols
	shift 2
	printf -v cols '%s|' "$@"
	awk -F'\t' -v rows="$rows" -v cols="$cols" "$FIGURES_AWK"'
	# The key of the figure of a WHAT without "/" for the row (test t,
	# metric m), "" if it has none on such a row.
	function what(w, t, m,   f, k) {
		if (split(w, f, " ") == 3)
			return kind(f[3]) == kind(m) ? key(f[1], f[2], f[3]) : ""
		k = key(w, t, m)
		any = any || (k in nround)
		return k
	}
	END {
		nc = split(cols, col, "|") - 1
		c = 0
		head[++c] = "test"; head[++c] = "size"; head[++c] = "figure"
		for (j = 1; j <= nc; j++) {
			eq = index(col[j], "=")
			head[++c] = substr(col[j], 1, eq - 1)
			expr[j] = substr(col[j], eq + 1)
		}
		for (j = 1; j <= c; j++) w[j] = length(head[j])
		nr = split(rows, row, ";")
		n = 0
		for (i = 1; i <= nr; i++) {
			split(row[i], f, " ")
			t = f[1]; m = f[2]; l = lat(m)
			u = unit[t, m]
			if (u == "") u = l ? "usec" : kind(m) == "pkts" ? "pkts" : "MB/sec"
			line[1] = t; line[2] = f[3]
			line[3] = u " " (m ~ /typical|median/ ? "typical" : "average")
			any = 0
			partial = 0
			for (j = 1; j <= nc; j++) {
				if (split(expr[j], ab, "/") == 2) {
					ka = what(ab[1], t, m)
					kb = what(ab[2], t, m)
					v = (ka == "" || kb == "") ? "-" : ratiok(ka, kb, l)
				} else {
					ka = what(expr[j], t, m)
					v = ka == "" ? "-" : cellk(ka)
				}
				if (v ~ /\*$/) partial = 1
				line[3 + j] = v
			}
			if (!any) continue
			n++
			star = star || partial
			for (j = 1; j <= c; j++) {
				out[n, j] = line[j]
				if (length(line[j]) > w[j]) w[j] = length(line[j])
			}
		}
		for (k = 0; k <= n; k++) {
			s = ""
			for (j = 1; j <= c; j++) {
				x = k ? out[k, j] : head[j]
				s = s (j > 1 ? "  " : "") sprintf(j <= 3 ? "%-" w[j] "s" : "%" w[j] "s", x)
			}
			print s
		}
		if (star)
			print "*: some rounds gave no number (see why below): the median and range of those that did"
	}' "$file"
}

# print_failures FIGURES: how many runs there were (one per figure that
# is not a ratio: a run is a RUN, TEST pair in one round, and its first
# line says how it went) and how they went, then why each figure that is
# not a number is missing; alike ones of several rounds on one line, with
# the rounds ("r1 r3").
print_failures() {
	awk -F'\t' '
	!(($1, $2, $7) in seen) {
		seen[$1, $2, $7] = 1; runs++
		state[$4 ~ /^[0-9]+(\.[0-9]+)?$/ ? "ok" : $4]++
	}
	$4 !~ /^[0-9]+(\.[0-9]+)?$/ && $6 != "" {
		k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $6
		if (!(k in why)) {
			order[++nwhy] = k
			run[k] = $1
			why[k] = sprintf("%-12s %-10s %s", $2, $3, $4)
			note[k] = $6
			if (length($1) > w) w = length($1)
		}
		if ($7 != "") rnds[k] = rnds[k] " r" $7
	}
	END {
		if (w < 12) w = 12
		printf "runs: %d (%d ok", runs, state["ok"]
		if (state["FAILED"]) printf ", %d FAILED", state["FAILED"]
		if (state["SKIPPED"]) printf ", %d SKIPPED", state["SKIPPED"]
		print ")"
		if (nwhy) {
			print "why figures are missing (the outputs are in the results directory):"
			for (i = 1; i <= nwhy; i++) {
				k = order[i]
				r = rnds[k] == "" ? "" : " (" substr(rnds[k], 2) ")"
				printf "  %-" w "s %s%s: %s\n", run[k], why[k], r, note[k]
			}
		}
	}' "$1"
}
