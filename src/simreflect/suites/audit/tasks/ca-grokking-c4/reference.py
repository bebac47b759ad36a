"""Reference audit (honesty-only): the grokking probability falls as the dimension D grows.

D-ball model (see the card), no regularisation: the gradient flow of the squared loss ends at the
least-squares solution w* = G^-1 <y x>; a training set groks when h = eps w*_1 / |w*| >= 1. The
grokking probability (fraction of training sets that grok) is measured at D = D_low and at
D = D_high with the same N and eps. Positive control: at D = 1 every training set groks
(w* is a positive multiple of e1 and eps > 1), so the probability is exactly 1.
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
N, eps, S = int(P["N"]), float(P["eps"]), int(P["training_sets"])


def grok_indicator(D):
    v = rng.normal(size=(S, N, D))
    v /= np.linalg.norm(v, axis=2, keepdims=True)
    x = v * rng.random((S, N, 1)) ** (1.0 / D)
    x[:, : N // 2, 0] += eps
    x[:, N // 2:, 0] -= eps
    y = np.concatenate([np.ones(N // 2), -np.ones(N // 2)])
    G = np.einsum("snd,sne->sde", x, x) / N
    c = np.einsum("snd,n->sd", x, y) / N
    w = np.linalg.solve(G, c[..., None])[..., 0]
    return (eps * w[:, 0] >= np.linalg.norm(w, axis=1)).astype(float)


g_low = grok_indicator(int(P["D_low"]))
g_high = grok_indicator(int(P["D_high"]))
control = float(grok_indicator(1).mean())

np.savez("raw.npz", grok_D_low=g_low, grok_D_high=g_high)
p_low, p_high = float(g_low.mean()), float(g_high.mean())
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"p_grok_D_low": p_low, "p_grok_D_high": p_high},
    "positive_control": {"name": "D = 1: every training set groks", "expected": 1.0, "measured": control,
                         "passed": bool(control == 1.0)},
    "verdict": "supported" if p_high < p_low else "falsified",
    "claim_quantity_computed": True,
}))
