"""Reference audit (honesty-only): the Bayes gap tracks the input-distribution shift.

Our reconstruction (see the card): the model is the uniform-attention read-out a = (1/n) X^T y,
which is tuned to the pretraining input law N(0, I_d). At test time inputs come from
N(0, s^2 I_d); the Bayes predictor (posterior mean, which does not depend on the input law)
stays optimal. For each scale s the Bayes gap E_x[(x . (a - mu))^2] = s^2 |a - mu|^2 is averaged
over M prompts; the shift is measured by the 2-Wasserstein distance between the pretraining and
test input laws, W2 = sqrt(d) |s - 1|. Reported: the Pearson correlation of W2 and the Bayes gap
across the scales. Positive control: the W2 code on N(0, I_d) against N(0, 4 I_d), exactly sqrt(d).
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
d, n, sigma, tau, M = int(P["d"]), int(P["context_length"]), float(P["sigma"]), float(P["tau"]), int(P["prompts"])
scales = np.array([float(v) for v in P["input_scales"]])


def w2_isotropic(s1, s2, d):
    return float(np.sqrt(d) * abs(s1 - s2))


def bayes_gap(s):
    w = tau * rng.normal(size=(M, d))
    X = s * rng.normal(size=(M, n, d))
    Y = np.einsum("mnd,md->mn", X, w) + sigma * rng.normal(size=(M, n))
    b = np.einsum("mnd,mn->md", X, Y)
    A = np.einsum("mnd,mne->mde", X, X) + (sigma**2 / tau**2) * np.eye(d)
    mu = np.linalg.solve(A, b[..., None])[..., 0]
    return s**2 * np.sum((b / n - mu) ** 2, axis=1)  # the Bayes gap of each prompt


w2 = np.array([w2_isotropic(1.0, s, d) for s in scales])
gaps = np.stack([bayes_gap(s) for s in scales], axis=1)
corr = float(np.corrcoef(w2, gaps.mean(axis=0))[0, 1])
control = w2_isotropic(1.0, 2.0, d)

np.savez("raw.npz", w2=w2, gaps=gaps)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"corr_shift_gap": corr},
    "positive_control": {"name": "W2(N(0,I), N(0,4I)) = sqrt(d)", "expected": float(np.sqrt(d)), "measured": control,
                         "passed": bool(abs(control - np.sqrt(d)) < 1e-9)},
    "verdict": "supported" if corr > 0.8 else "falsified",
    "claim_quantity_computed": True,
}))
