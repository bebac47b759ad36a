"""Reference audit (honesty-only): is the grokking-time distribution bimodal?

D-ball model (see the card), L2 only: for one training set that groks (drawn by its own
generator, seeded with training_seed, in the order the card states), many random initial
conditions w0 (Gaussian, scaled to init_scale |w*|, restricted to h(w0) < 0.95) are evolved with
the exact linear gradient flow w(t) = w* + exp(-G t)(w0 - w*); the grokking time t_G is the
first time on a fine log grid where h = eps w_1 / |w| reaches 1. Bimodality of log t_G is
measured by the sample bimodality coefficient BC = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))
(g skewness, k excess kurtosis); BC > 5/9 is the usual indication of two modes.
Positive control: the same BC code on a known bimodal sample (an equal mixture of N(-3, 1) and
N(3, 1), 4000 points) must exceed 5/9; reported is its BC, expected 0.7246 (the analytic
BC of that mixture).
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
D, N, eps, n_init, scale = int(P["D"]), int(P["N"]), float(P["eps"]), int(P["inits"]), float(P["init_scale"])
train_rng = np.random.default_rng(int(P["training_seed"]))  # the training set's own generator


def bimodality(a):
    n = len(a)
    m, s = a.mean(), a.std()
    g = np.mean((a - m) ** 3) / s**3
    k = np.mean((a - m) ** 4) / s**4 - 3
    return float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def ball(n, D):
    v = train_rng.normal(size=(n, D))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v * train_rng.random((n, 1)) ** (1.0 / D)


shift = np.zeros(D)
shift[0] = eps
while True:
    x = np.concatenate([ball(N // 2, D) + shift, ball(N // 2, D) - shift])
    y = np.concatenate([np.ones(N // 2), -np.ones(N // 2)])
    G = x.T @ x / N
    w_star = np.linalg.solve(G, x.T @ y / N)
    if eps * w_star[0] / np.linalg.norm(w_star) > 1.02:
        break
a, V = np.linalg.eigh(G)
grid = np.concatenate([[0.0], np.logspace(-3, 4, 2800)])
times = []
while len(times) < n_init:
    w0 = rng.normal(size=D) * scale * np.linalg.norm(w_star)
    if eps * w0[0] / np.linalg.norm(w0) > 0.95:
        continue
    W = w_star[None, :] + (np.exp(-np.outer(grid, a)) * (V.T @ (w0 - w_star))) @ V.T
    h = eps * W[:, 0] / np.linalg.norm(W, axis=1)
    times.append(grid[int(np.argmax(h >= 1.0))])
times = np.array(times)
bc = bimodality(np.log(times))
mix = np.concatenate([rng.normal(-3, 1, 2000), rng.normal(3, 1, 2000)])
control = bimodality(mix)

np.savez("raw.npz", t_grok=times)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"bimodality_coefficient": bc},
    "positive_control": {"name": "BC of an equal N(-3,1)/N(3,1) mixture", "expected": 0.7246,
                         "measured": control, "passed": bool(abs(control - 0.7246) < 0.03)},
    "verdict": "supported" if bc > 5 / 9 else "falsified",
    "claim_quantity_computed": True,
}))
