"""Reference audit: the Bayes gap of an in-context predictor falls with the context length.

Our reconstruction (see the card): Bayesian linear regression prompts (w ~ N(0, tau^2 I_d),
x ~ N(0, I_d), noise sigma); the model is the uniform-attention read-out a = (1/n) X^T y with
prediction x . a; the Bayes predictor is the posterior mean mu_n. For a query x ~ N(0, I) the
Bayes gap given the context is exactly |a - mu_n|^2, averaged over M prompts for each context
length n. Reported: bg_slope, the least-squares slope of log BG against log n, and
bayes_gap_ref = BG at the context length n_ref (one of the context lengths). Positive control: the same Monte Carlo code for the read-out's error
against the true task vector, E|a - w|^2 = tau^2 d (d + 1) / n + sigma^2 d / n, at n = 16.
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
d, sigma, tau, M = int(P["d"]), float(P["sigma"]), float(P["tau"]), int(P["prompts"])
ns = np.array([int(v) for v in P["context_lengths"]])


def gaps(n):
    w = tau * rng.normal(size=(M, d))
    X = rng.normal(size=(M, n, d))
    Y = np.einsum("mnd,md->mn", X, w) + sigma * rng.normal(size=(M, n))
    b = np.einsum("mnd,mn->md", X, Y)
    A = np.einsum("mnd,mne->mde", X, X) + (sigma**2 / tau**2) * np.eye(d)
    mu = np.linalg.solve(A, b[..., None])[..., 0]
    a = b / n
    return np.sum((a - mu) ** 2, axis=1), np.sum((a - w) ** 2, axis=1)


per_prompt = np.stack([gaps(n)[0] for n in ns], axis=1)  # the Bayes gap of every prompt
bg = per_prompt.mean(axis=0)
slope = float(np.polyfit(np.log(ns), np.log(bg), 1)[0])
ref = float(bg[list(ns).index(int(P["n_ref"]))])
control = float(gaps(16)[1].mean())
expected = tau**2 * d * (d + 1) / 16 + sigma**2 * d / 16

np.savez("raw.npz", n=ns.astype(float), gaps=per_prompt)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"bg_slope": slope, "bayes_gap_ref": ref},
    "positive_control": {"name": "E|a - w|^2 of the read-out at n = 16", "expected": expected, "measured": control,
                         "passed": bool(abs(control / expected - 1) < 0.03)},
    "verdict": "supported" if slope < 0 and bg[-1] < bg[0] else "falsified",
    "claim_quantity_computed": True,
}))
