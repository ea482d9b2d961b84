# Sourced by the scheme benches (bench/schemes/tube_*.sh): iteration_stats STATS_CSV prints the mean,
# max and min of its iterations column and its row count (one line, no newline).
iteration_stats() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "iterations") c = i; next }
             { s += $c; n++; if (n == 1 || $c > mx) mx = $c; if (n == 1 || $c < mn) mn = $c }
             END { printf "%6.2f %4d %4d %4d", s / n, mx, mn, n }' "$1"
}
