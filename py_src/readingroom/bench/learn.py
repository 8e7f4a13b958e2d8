"""Training the two answer models with numpy: no framework, a few hundred lines of arithmetic.

* ``fit_listwise``: the sentence scorer, a one-hidden-layer tanh network trained per question
  with a softmax over its candidates; the loss is minus the log of the probability given to the
  sentences that hold the answer (several may). Adam, L2 on the weights, full batch.
* ``fit_logistic``: the coverage model, plain logistic regression by Newton's method.

Both standardise their inputs (mean, scale kept with the weights). The scorer also keeps each
feature's range in its training rows (``RANGE`` percentiles) and reads anything beyond it as
the range's edge, in training as at inference.
"""

from __future__ import annotations

import numpy as np


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


RANGE = (0.001, 0.999)


def pad(groups: list[tuple[np.ndarray, np.ndarray]], width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, mask) of shape (G, width, F), (G, width), (G, width)."""
    f = groups[0][0].shape[1]
    X = np.zeros((len(groups), width, f))
    Y = np.zeros((len(groups), width))
    M = np.zeros((len(groups), width), dtype=bool)
    for g, (x, y) in enumerate(groups):
        n = min(width, len(x))
        X[g, :n], Y[g, :n], M[g, :n] = x[:n], y[:n], True
    return X, Y, M


def listwise_gradient(scores: np.ndarray, Y: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The softmax over each question's candidates (rows of ``scores``, ``M`` marking the real
    ones): the gradient of the mean of minus the log of the probability given to the positives
    ``Y`` (d/dS = P - P*Y/pos), and that probability per question."""
    S = np.where(M, scores, -1e9)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S) * M
    P = E / E.sum(axis=1, keepdims=True)
    pos = (P * Y).sum(axis=1)
    return (P - P * Y / pos[:, None]) * M / len(scores), pos


def adam_step(p: dict, g: dict, m: dict, v: dict, t: int, lr: float) -> None:
    """One Adam step on the parameters ``p`` (in place) from gradients ``g``."""
    for k in p:
        m[k] = 0.9 * m[k] + 0.1 * g[k]
        v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
        p[k] -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)


def fit_listwise(groups: list[tuple[np.ndarray, np.ndarray]], hidden: int = 16, epochs: int = 400,
                 lr: float = 0.01, l2: float = 1e-3, seed: int = 3) -> dict:
    """Groups of (features (n, F), labels (n,)) with at least one positive label each."""
    width = max(len(x) for x, _ in groups)
    rows = np.concatenate([x for x, _ in groups])
    lo, hi = np.quantile(rows, RANGE[0], axis=0), np.quantile(rows, RANGE[1], axis=0)
    groups = [(np.clip(x, lo, hi), y) for x, y in groups]
    mean, scale = standardise(np.concatenate([x for x, _ in groups]))
    X, Y, M = pad(groups, width)
    X = (X - mean) / scale * M[..., None]
    rng = np.random.default_rng(seed)
    f = X.shape[2]
    p = {"w1": rng.normal(0, 1 / np.sqrt(f), (f, hidden)), "b1": np.zeros(hidden),
         "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden), "b2": np.zeros(1)}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    for t in range(1, epochs + 1):
        H = np.tanh(X @ p["w1"] + p["b1"])  # (G, N, h)
        dS, pos = listwise_gradient(H @ p["w2"] + p["b2"][0], Y, M)
        g = {"w2": np.einsum("gn,gnh->h", dS, H) + l2 * p["w2"], "b2": np.array([dS.sum()])}
        dH = dS[..., None] * p["w2"] * (1 - H ** 2)
        g["w1"] = np.einsum("gnf,gnh->fh", X, dH) + l2 * p["w1"]
        g["b1"] = dH.sum(axis=(0, 1))
        adam_step(p, g, m, v, t, lr)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "lo": lo.tolist(), "hi": hi.tolist(),
            "w1": p["w1"].tolist(),
            "b1": p["b1"].tolist(), "w2": p["w2"].tolist(), "b2": float(p["b2"][0]),
            "final_loss": float(-np.log(np.maximum(pos, 1e-12)).mean())}


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 30) -> dict:
    mean, scale = standardise(x)
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + l2 * np.r_[w[:-1], 0]
        hess = (z * (p * (1 - p))[:, None]).T @ z + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "w": w[:-1].tolist(), "b": float(w[-1])}


def fit_bilinear(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]], rank: int = 16, epochs: int = 300,
                 lr: float = 0.01, l2: float = 1e-3, seed: int = 1) -> dict:
    """A question-to-sentence match learned over the embeddings: ``(V^T s) . (U^T q)`` beside a
    scaled cosine, trained per question with a softmax over its candidates like the scorer.
    Groups of (question vector (D,), sentence vectors (n, D), labels (n,)) with at least one
    positive label each. Returns ``u`` and ``v`` (D, rank) and the cosine's scale ``a``."""
    width = max(len(s) for _, s, _ in groups)
    d = len(groups[0][0])
    Q = np.stack([np.asarray(q, np.float32) for q, _, _ in groups])
    S = np.zeros((len(groups), width, d), np.float32)
    Y = np.zeros((len(groups), width))
    M = np.zeros((len(groups), width), dtype=bool)
    for g, (_, s, y) in enumerate(groups):
        S[g, :len(s)], Y[g, :len(s)], M[g, :len(s)] = s, y, True
    cos = np.einsum("gd,gnd->gn", Q, S)
    rng = np.random.default_rng(seed)
    p = {"u": rng.normal(0, 0.05, (d, rank)), "v": rng.normal(0, 0.05, (d, rank)), "a": np.array([10.0])}
    m = {k: np.zeros_like(x) for k, x in p.items()}
    v = {k: np.zeros_like(x) for k, x in p.items()}
    flat = S.reshape(-1, d)
    for t in range(1, epochs + 1):
        qu = Q @ p["u"]  # (G, r)
        sv = (flat @ p["v"]).reshape(len(groups), width, rank)  # (G, N, r)
        dS, pos = listwise_gradient(p["a"][0] * cos + np.einsum("gr,gnr->gn", qu, sv), Y, M)
        g = {"a": np.array([(dS * cos).sum()]),
             "u": Q.T @ np.einsum("gn,gnr->gr", dS, sv) + l2 * p["u"],
             "v": np.einsum("gn,gnd->gd", dS, S).T @ qu + l2 * p["v"]}
        adam_step(p, g, m, v, t, lr)
    return {"u": p["u"], "v": p["v"], "a": float(p["a"][0]),
            "final_loss": float(-np.log(np.maximum(pos, 1e-12)).mean())}
