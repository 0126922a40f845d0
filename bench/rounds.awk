# bench/rounds.awk — what bench/compare_lu.sh and bench/compare_mixed.sh share: the second run of
# each case of each round ("<impl> n=N ... run=2 gflops=G ... residual=R" lines), gathered by
# implementation and n, with val() to read a key=value field and median() over the rounds. The
# scripts add their own END block (awk -f bench/rounds.awk -f their table).
function val(s, k,   i, a, m) { m = split(s, a, " ");
  for (i = 1; i <= m; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2);
  return "" }
function median(key,   m, i, j, t, v) { m = cnt[key]
  for (i = 1; i <= m; i++) v[i] = x[key, i] + 0
  for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
/ run=2 gflops=/ {
  impl = $1; n = val($0, "n") + 0; r = val($0, "residual")
  if (!(n in seen)) { seen[n] = 1; order[++nn] = n }
  x[impl, n, ++cnt[impl, n]] = val($0, "gflops"); has[impl] = 1
  if (worst[impl, n] == "" || r + 0 > worst[impl, n] + 0) worst[impl, n] = r
}
