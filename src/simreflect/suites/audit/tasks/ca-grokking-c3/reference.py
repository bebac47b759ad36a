"""Reference audit (honesty-only): L1 regularisation raises the grokking probability.

D-ball model (see the card): positives uniform in the unit D-ball at +eps e1, negatives at
-eps e1, N training points. The gradient flow of the squared loss with penalties
lam1 |w|_1 + lam2/2 |w|^2 ends at the elastic-net minimiser w*, computed here by proximal
gradient descent (ISTA) for many training sets at once. A training set groks when w* classifies
the whole population correctly, i.e. h = eps w*_1 / |w*| >= 1. The grokking probability is the
fraction of training sets that grok, at lam1 = lam1_off and at lam1 = lam1_on, on the same sets.
Positive control: the same solver with lam1 = lam2 = 0 must reproduce the least-squares
solution; reported is the largest |w_ista - w_lstsq| over the training sets (expected 0).
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
D, N, eps, S = int(P["D"]), int(P["N"]), float(P["eps"]), int(P["training_sets"])
lam2 = float(P["lam2"])


def ball(S, n, D):
    v = rng.normal(size=(S, n, D))
    v /= np.linalg.norm(v, axis=2, keepdims=True)
    return v * rng.random((S, n, 1)) ** (1.0 / D)


shift = np.zeros(D)
shift[0] = eps
x = np.concatenate([ball(S, N // 2, D) + shift, ball(S, N // 2, D) - shift], axis=1)
y = np.concatenate([np.ones(N // 2), -np.ones(N // 2)])
G = np.einsum("snd,sne->sde", x, x) / N
c = np.einsum("snd,n->sd", x, y) / N


def fixed_point(lam1, lam2, iters=3000):
    A = G + lam2 * np.eye(D)
    L = np.linalg.eigvalsh(A)[:, -1:]
    w = np.zeros((S, D))
    for _ in range(iters):
        z = w - (np.einsum("sde,se->sd", A, w) - c) / L
        w = np.sign(z) * np.maximum(np.abs(z) - lam1 / L, 0.0)
    return w


def groks(w):
    norm = np.linalg.norm(w, axis=1)
    return (norm > 0) & (eps * w[:, 0] >= np.maximum(norm, 1e-300))


g_off = groks(fixed_point(float(P["lam1_off"]), lam2)).astype(float)
g_on = groks(fixed_point(float(P["lam1_on"]), lam2)).astype(float)
control = float(np.max(np.abs(fixed_point(0.0, 0.0) - np.linalg.solve(G, c[..., None])[..., 0])))

np.savez("raw.npz", grok_l1_off=g_off, grok_l1_on=g_on)
p_off, p_on = float(g_off.mean()), float(g_on.mean())
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"p_grok_l1_off": p_off, "p_grok_l1_on": p_on},
    "positive_control": {"name": "ISTA at lam1 = lam2 = 0 equals least squares", "expected": 0.0, "measured": control,
                         "passed": bool(control < 1e-6)},
    "verdict": "supported" if p_on > p_off else "falsified",
    "claim_quantity_computed": True,
}))
