"""Percentiles as the reports state them (nearest-rank, so every figure is a real sample)."""

from __future__ import annotations

import math
import os
from typing import Iterable, Sequence


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(s)))
    return round(s[rank - 1], 3)


def summary(values: Iterable[float]) -> dict:
    v = list(values)
    return {"p50": percentile(v, 50), "p95": percentile(v, 95), "n": len(v),
            "mean": round(sum(v) / len(v), 3) if v else float("nan")}


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, stated beside every figure on a shared machine."""
    return [round(x, 2) for x in os.getloadavg()]
