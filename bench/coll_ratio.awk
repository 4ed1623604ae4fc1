# bench/coll_ratio.awk — clumpi's default against the better peer, point by
# point, from a bench/coll CSV:
#   awk -F, [-v peers="openmpi mpich"] -f bench/coll_ratio.awk RESULTS.csv
# One line per point clumpi's default ran, in the order first seen:
#   op ranks nodes bytes clumpi_us peer_us peer
# each time the best of the point's rounds (the slowest rank's average);
# peer_us -1 and peer "-" when no peer ran it. The peers' one-node times
# stand for every node count. peers unset: every MPI in the CSV but clumpi.
# Used by bench/coll_run.sh (its table) and bench/coll_plot.sh (OP-ratio).
NF >= 10 && $1 != "mpi" {
    k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6
    if (!(k in best) || $9 + 0 < best[k]) best[k] = $9 + 0
    if ($1 == "clumpi" && $3 == "default" && !(k in seen)) {
        seen[k] = 1
        pts[++n] = $2 SUBSEP $4 SUBSEP $5 SUBSEP $6
    }
    if ($1 !~ /^clumpi/ && !($1 in known)) { known[$1] = 1; all = all " " $1 }
}
END {
    np = split(peers != "" ? peers : all, pe, " ")
    for (i = 1; i <= n; i++) {
        split(pts[i], x, SUBSEP)
        c = best["clumpi" SUBSEP x[1] SUBSEP "default" SUBSEP x[2] SUBSEP x[3] SUBSEP x[4]]
        pv = -1; pn = "-"
        for (j = 1; j <= np; j++) {
            q = pe[j] SUBSEP x[1] SUBSEP "default" SUBSEP x[2] SUBSEP 1 SUBSEP x[4]
            if ((q in best) && (pv < 0 || best[q] < pv)) { pv = best[q]; pn = pe[j] }
        }
        printf "%s %s %s %s %.10g %.10g %s\n", x[1], x[2], x[3], x[4], c, pv, pn
    }
}
