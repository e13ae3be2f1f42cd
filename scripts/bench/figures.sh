# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# What the benchmarks (scripts/bench.sh, scripts/bench-wire.sh) share:
# their figures file, written in the guest, and the tables that compare
# its figures, printed on the host. Sourced by both.
#
# A figures file has one line a figure, tab-separated:
#
#	RUN TEST METRIC VALUE UNIT NOTE
#
# RUN names what was measured (a driver and a setup: rxe, sroce-pair,
# sroce-netem, tcp-clean...; no "/" or "=" in it), TEST the program
# (ib_write_bw, iperf3...), METRIC the figure (perftest's column: BW_average,
# t_typical, t_avg; or rtt_median, throughput...). VALUE is a number, or
# FAILED or SKIPPED with NOTE saying why; UNIT is as the program prints it.
# Metrics named t_* or rtt_* are latencies (less is better), the others
# bandwidths (more is better).

# record RUN TEST METRIC VALUE [UNIT [NOTE]]: one line of $FIGURES.
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" "${6:-}" >>"$FIGURES"
}

# The awk side: each line read into val[RUN, TEST, METRIC] and
# unit[TEST, METRIC]; cell(run, test, metric) is a figure or "-",
# num(x) whether it is a number, lat(metric) whether it is a latency,
# ratio(a, b, lat) how much better a is than b ("-" without two numbers).
# shellcheck disable=SC2016 # awk, not shell
FIGURES_AWK='
function cell(r, t, m) { return ((r, t, m) in val) ? val[r, t, m] : "-" }
function num(x) { return x ~ /^[0-9]+(\.[0-9]+)?$/ }
function lat(m) { return m ~ /^(t|rtt)_/ }
function ratio(a, b, l) {
	if (!num(a) || !num(b) || (l ? a : b) + 0 == 0) return "-"
	return sprintf("%.2f", l ? b / a : a / b)
}
{
	val[$1, $2, $3] = $4
	if ($5 != "") unit[$2, $3] = $5
}
'

# figure FIGURES RUN TEST METRIC: that figure, "-" if there is none.
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
# "RUN TEST METRIC": that one figure, on the rows of its kind (bandwidth
# or latency) only; or "A/B", A and B each one of those two: the ratio of
# A's figure to B's, above 1 where A is better (A/B for a bandwidth, B/A
# for a latency). A row with no figure of a run in it is left out.
print_table() {
	local file=$1 rows=$2 cols
	shift 2
	printf -v cols '%s|' "$@"
	awk -F'\t' -v rows="$rows" -v cols="$cols" "$FIGURES_AWK"'
	# One figure for the row (test t, metric m) from a WHAT without "/".
	function what(w, t, m,   f) {
		if (split(w, f, " ") == 3)
			return lat(f[3]) == lat(m) ? cell(f[1], f[2], f[3]) : "-"
		any = any || cell(w, t, m) != "-"
		return cell(w, t, m)
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
			if (u == "") u = l ? "usec" : "MB/sec"
			line[1] = t; line[2] = f[3]
			line[3] = u " " (m ~ /typical|median/ ? "typical" : "average")
			any = 0
			for (j = 1; j <= nc; j++) {
				if (split(expr[j], ab, "/") == 2)
					v = ratio(what(ab[1], t, m), what(ab[2], t, m), l)
				else
					v = what(expr[j], t, m)
				line[3 + j] = v
			}
			if (!any) continue
			n++
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
	}' "$file"
}

# print_failures FIGURES: how many runs there were (one per figure that
# is not a ratio: a run is a RUN, TEST pair) and how they went, then why
# each figure that is not a number is missing.
print_failures() {
	awk -F'\t' '
	!(($1, $2) in seen) {
		seen[$1, $2] = 1; runs++
		state[$4 ~ /^[0-9]+(\.[0-9]+)?$/ ? "ok" : $4]++
	}
	$4 !~ /^[0-9]+(\.[0-9]+)?$/ && $6 != "" {
		why[++nwhy] = sprintf("  %-12s %-12s %-10s %s: %s", $1, $2, $3, $4, $6)
	}
	END {
		printf "runs: %d (%d ok", runs, state["ok"]
		if (state["FAILED"]) printf ", %d FAILED", state["FAILED"]
		if (state["SKIPPED"]) printf ", %d SKIPPED", state["SKIPPED"]
		print ")"
		if (nwhy) {
			print "why figures are missing (the outputs are in the results directory):"
			for (i = 1; i <= nwhy; i++) print why[i]
		}
	}' "$1"
}
