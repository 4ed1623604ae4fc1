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

# gp_plot OUTBASE TITLE XLABEL YLABEL LOGX LOGY XCOL YCOL SERIES-FILE...
#   writes OUTBASE.png and OUTBASE.svg: one line per series file (titled by
#   the file's name), columns XCOL:YCOL; LOGX / LOGY = 1 for a log2 x axis /
#   a log y axis. Needs gnuplot.
gp_plot() {
    _out=$1 _title=$2 _xl=$3 _yl=$4 _lx=$5 _ly=$6 _xc=$7 _yc=$8
    shift 8
    _gp=$(mktemp)
    for _term in png svg; do
        if [ $_term = png ]; then _t="pngcairo size 900,600"; else _t="svg size 900,600"; fi
        {
            echo "set terminal $_t"
            echo "set output '$_out.$_term'"
            echo "set title '$_title'"
            echo "set xlabel '$_xl'"
            echo "set ylabel '$_yl'"
            [ "$_lx" = 1 ] && echo "set logscale x 2" && echo "set format x '%.0b%B'"
            [ "$_ly" = 1 ] && echo "set logscale y"
            echo "set key left top"
            echo "set grid"
            printf "plot "
            _sep=
            for _f in "$@"; do
                printf "%s'%s' using %s:%s with linespoints title '%s'" "$_sep" "$_f" "$_xc" \
                    "$_yc" "$(basename "$_f")"
                _sep=", "
            done
            echo
        } > "$_gp"
        gnuplot "$_gp"
    done
    rm -f "$_gp"
}
