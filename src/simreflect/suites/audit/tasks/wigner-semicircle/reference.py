"""Reference audit: the Wigner semicircle law for GOE matrices.

Draw symmetric Gaussian matrices H = (A + A^T) / sqrt(2 N) (off-diagonal variance 1/N), whose
spectra fill [-2, 2] with density sqrt(4 - x^2) / (2 pi) as N grows; pool the eigenvalues of
several samples and report the fraction in [-a, a]. Positive control: the same code with a = 2,
where the semicircle carries all of its mass (expected 1).
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
N, samples, a = int(P["N"]), int(P["samples"]), float(P["a"])

eig = []
for _ in range(samples):
    A = rng.normal(size=(N, N))
    eig.append(np.linalg.eigvalsh((A + A.T) / np.sqrt(2 * N)))
eig = np.array(eig)  # (samples, N): one ascending spectrum per row


def mass(eig, a):
    return float(np.mean(np.abs(eig) <= a))


m = mass(eig, a)
control = mass(eig, 2.0)
theory = (a * np.sqrt(4 - a * a) + 4 * np.arcsin(a / 2)) / (2 * np.pi)
np.savez("raw.npz", eigenvalues=eig)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"semicircle_mass": m},
    "positive_control": {"name": "mass of [-2, 2]", "expected": 1.0, "measured": control,
                         "passed": bool(abs(control - 1) < 0.01)},
    "verdict": "supported" if abs(m - theory) < 0.01 else "falsified",
    "claim_quantity_computed": True,
}))
