# bench/plot_lib.sh — gnuplot helpers shared by the benchmark plot scripts
# (coll_plot.sh, ni_plot.sh); source it, it defines functions only.
#
# plot_init RESULTS.csv [OUTDIR]  (a plot script's own arguments)
#   sets csv, out (created; default: the results' folder/plots) and tmp (a
#   scratch folder removed at exit); fails without gnuplot.
plot_init() {
    [ $# -ge 1 ] && [ -r "$1" ] || { echo "usage: $0 RESULTS.csv [OUTDIR]" >&2; exit 2; }
    command -v gnuplot >/dev/null || { echo "gnuplot not found" >&2; exit 1; }
    csv=$1
    out=${2:-$(dirname "$csv")/plots}
    mkdir -p "$out"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

# gp_terminals OUTBASE BODY: runs gnuplot twice, writing OUTBASE.png and
# OUTBASE.svg; the function BODY prints the script after the terminal and
# output lines (the plot helpers below share it).
gp_terminals() {
    _gp=$(mktemp)
    for _term in png svg; do
        if [ $_term = png ]; then _t="pngcairo size 900,600"; else _t="svg size 900,600"; fi
        {
            echo "set terminal $_t"
            echo "set output '$1.$_term'"
            "$2"
        } > "$_gp"
        gnuplot "$_gp"
    done
    rm -f "$_gp"
}

# gp_plot OUTBASE TITLE XLABEL YLABEL LOGX LOGY XCOL YCOL SERIES-FILE...
#   writes OUTBASE.png and OUTBASE.svg: one line per series file (titled by
#   the file's name), columns XCOL:YCOL; LOGX / LOGY = 1 for a log2 x axis /
#   a log y axis. Needs gnuplot.
gp_plot() {
    _out=$1 _title=$2 _xl=$3 _yl=$4 _lx=$5 _ly=$6 _xc=$7 _yc=$8
    shift 8
    _series="$*"
    gp_terminals "$_out" gp_plot_body
}
gp_plot_body() {
    echo "set title '$_title'"
    echo "set xlabel '$_xl'"
    echo "set ylabel '$_yl'"
    [ "$_lx" = 1 ] && echo "set logscale x 2" && echo "set format x '%.0b%B'"
    [ "$_ly" = 1 ] && echo "set logscale y"
    echo "set key left top"
    echo "set grid"
    printf "plot "
    _sep=
    for _f in $_series; do
        printf "%s'%s' using %s:%s with linespoints title '%s'" "$_sep" "$_f" "$_xc" \
            "$_yc" "$(basename "$_f")"
        _sep=", "
    done
    echo
}

# gp_bars OUTBASE TITLE YLABEL YCOL SERIES-FILE...
#   one bar per series file (labelled by the file's name) with the mean of
#   its column YCOL: for results without a size axis (barrier, size 0 only,
#   which a log axis cannot show).
gp_bars() {
    _out=$1 _title=$2 _yl=$3 _yc=$4
    shift 4
    _bars=$(mktemp)
    for _f in "$@"; do
        awk -v c="$_yc" -v n="$(basename "$_f")" '{ s += $c; k++ }
            END { if (k) printf "\"%s\" %g\n", n, s / k }' "$_f"
    done > "$_bars"
    gp_terminals "$_out" gp_bars_body
    rm -f "$_bars"
}
gp_bars_body() {
    echo "set title '$_title'"
    echo "set ylabel '$_yl'"
    echo "set style fill solid 0.6"
    echo "set boxwidth 0.6"
    echo "set yrange [0:*]"
    echo "set xtics rotate by -30"
    echo "set grid ytics"
    echo "unset key"
    echo "plot '$_bars' using 0:2:xtic(1) with boxes"
}
