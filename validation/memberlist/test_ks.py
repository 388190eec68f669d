#!/usr/bin/python3
"""Checks compare.py's statistics: the KS statistic on a constructed case, the asymptotic
p-value at the classic 5 % critical value (lambda = 1.358), the test's size under the null
hypothesis, and the bootstrap median interval. Exit 1 on a failure."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

sys.dont_write_bytecode = True
fails = []
# D of two samples that differ by a known shift on a fine grid.
d, p = compare.ks_2samp([0.0, 1.0, 2.0, 3.0], [0.5, 1.5, 2.5, 3.5])
if abs(d - 0.25) > 1e-12:
    fails.append(f"D = {d}, expected 0.25")
d, p = compare.ks_2samp([1.0, 2.0, 3.0], [10.0, 11.0, 12.0])
if d != 1.0:
    fails.append(f"disjoint samples: D = {d}, expected 1")
# lambda = 1.358 gives p = 0.05 (Q_KS), for large samples.
n = 20000
en = math.sqrt(n * n / (2 * n))
shift = 1.358 / (en + 0.12 + 0.11 / en)
a = np.arange(n) / n
d, p = compare.ks_2samp(a, a + shift)
if abs(p - 0.05) > 0.003:
    fails.append(f"p at lambda 1.358 = {p}, expected 0.05")
# Size under H0 (25 against 300 normal samples, as the validation): close to 5 %.
rng = np.random.default_rng(3)
ps = np.array([compare.ks_2samp(rng.normal(size=25), rng.normal(size=300))[1] for _ in range(400)])
size = float(np.mean(ps < 0.05))
if not 0.02 <= size <= 0.09:
    fails.append(f"size under H0 = {size}")
m, lo, hi = compare.median_ci([1.0, 2.0, 3.0, 4.0, 100.0])
if m != 3.0 or not lo <= m <= hi:
    fails.append(f"median_ci = {m}, [{lo}, {hi}]")
for f in fails:
    print("test_ks:", f)
sys.exit(1 if fails else 0)
