"""Request limits for ``serve``: a token bucket per token (requests per minute, with a burst)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class RateLimit:
    per_minute: float
    burst: int
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # key -> (tokens, at)

    def take(self, key: str, now: float | None = None) -> float:
        """0 when a request may go now, else the seconds until one may."""
        now = time.monotonic() if now is None else now
        tokens, at = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.per_minute / 60.0)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1.0 - tokens) * 60.0 / self.per_minute
