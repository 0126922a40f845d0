#!/usr/bin/env bash
# bench/sim/plot.sh FILE.txt...: for each output of bench/sim/summa_hsumma.sh, FILE.png with the
# simulated time and the communication the computation did not hide, against the groups G
# (gnuplot; Debian gnuplot-nox).
set -euo pipefail
for f in "$@"; do
  data=$(mktemp)
  grep '"bench":"sim_matmul"' "$f" | grep -v '"alg":"3d"' |
    sed 's/.*"P":\([0-9]*\),"n":\([0-9]*\),\("k":[0-9]*,\)\{0,1\}"b":\([0-9]*\),.*"G":\([0-9]*\),.*"seconds":\([0-9.e+-]*\),"compute":\([0-9.e+-]*\),"comm":\([0-9.e+-]*\)}/\5 \6 \8 \1 \2 \4/' > "$data"
  read -r _ _ _ P n b < "$data"
  case $f in
    *_fattree*) where="fat tree of 64-core nodes" ;;
    *_slowtop*) where="fat tree of 64-core nodes, 4:1 uplinks" ;;
    *) where="BG/P-like torus" ;;
  esac
  gnuplot <<GP
set terminal pngcairo size 860,520
set output "${f%.txt}.png"
set title "SUMMA (G = 1) vs HSUMMA: P = $P, n = $n, b = M = $b, $where (simulated)"
set xlabel "groups G"
set ylabel "seconds (simulated)"
set y2label "seconds (simulated)"
set logscale x 2
set ytics nomirror
set y2tics
set key top left
plot "$data" using 1:2 with linespoints axes x1y1 title "time (left)", \
     "$data" using 1:3 with linespoints axes x1y2 title "communication not hidden: time - 2n^3/(P speed) (right)"
GP
  rm -f "$data"
done
