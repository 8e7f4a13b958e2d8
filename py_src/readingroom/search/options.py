"""Retrieval settings: one frozen dataclass, built from the JSON the page and CLI send."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..errors import BadInput
from .filters import from_dict as filters_from_dict
from ..records import Filters
from .rerank import Boost

MAX_QUERY_CHARS = 2000  # longer text is cut (and said so in stats): no one types more


@dataclass(frozen=True)
class Options:
    """Every setting of one retrieval: mode, legs, fusion, reranking, filters, packing."""

    k: int = 8  # chunks kept after reranking, before merging into spans
    mode: str = "hybrid"  # hybrid | vector | lexical
    candidates: int = 100  # per leg
    fusion: str = "rrf"  # rrf | linear
    rrf_k: int = 60
    # vector, lexical. Tuned on the SciFact train split at rrf_k=60: lexical x2 took hybrid
    # nDCG@10 from 0.714 to 0.721 (k=10 with x1.2 reached 0.728, but 60 is the documented default).
    weights: tuple[float, float] = (1.0, 2.0)
    normalisation: str = "minmax"  # for linear fusion: minmax | zscore | sigmoid | none
    floor: float = 0.25  # minimum cosine similarity in the vector leg
    # The name leg (names.py): the best chunks, by meaning, of documents the question names,
    # fused as a third leg with this weight (0: off).
    name_weight: float = 1.0
    filters: Filters = field(default_factory=Filters)
    boosts: tuple[Boost, ...] = ()
    cap_key: str | None = "doc"  # diversity: at most cap_per_key hits per value of this key
    cap_per_key: int = 3
    mmr_lambda: float | None = None
    # The vector leg's first lift_vector chunks rank right after the lift_to-th or higher,
    # whatever the words say (0: off). With lexical x2, a chunk only meaning finds (a person's
    # own words: "get rid of variables" for "remove objects") ranks below the lexical leg's top
    # ~60; ask() lifts 2.
    lift_vector: int = 0
    # Each document the question names (the name leg) has its best lift_named chunks by meaning
    # lifted the same way (0: off): "where does arsenic and old lace take place" names the play,
    # whose passage shares no other word with it, below every chunk that says "take place".
    lift_named: int = 0
    lift_to: int = 4
    budget: int = 1200
    reserve: int = 0
    documents: int = 20  # document-level candidates returned
    syntax: str = "web"  # how query text is read: web | plain | phrase | strict (syntax.py)
    # HNSW's candidate list on Postgres (recall against speed): the smallest of 100-800 that
    # cleared recall@10 0.98 on the 50 calibration queries at 1M distinct vectors; 0.970 on the
    # held-back ones (README, "A shared library on Postgres").
    ef_search: int = 600

    def to_dict(self) -> dict:
        d = asdict(self)
        d["weights"] = list(self.weights)
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> "Options":
        d = dict(d or {})
        names = {f.name for f in fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise BadInput(f"unknown option(s): {', '.join(sorted(unknown))}")
        kw: dict[str, Any] = {}
        try:
            for k, v in d.items():
                if k == "filters":
                    kw[k] = filters_from_dict(v)
                elif k == "boosts":
                    kw[k] = tuple(Boost.from_dict(b) for b in v or ())
                elif k == "weights":
                    kw[k] = (float(v[0]), float(v[1]))
                else:
                    kw[k] = v
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise BadInput(f"bad option {k!r}: {e}") from e
        opts = cls(**kw)
        opts.check()
        return opts

    def check(self) -> None:
        if self.mode not in ("hybrid", "vector", "lexical"):
            raise BadInput(f"mode must be hybrid, vector or lexical, not {self.mode!r}")
        if self.fusion not in ("rrf", "linear"):
            raise BadInput(f"fusion must be rrf or linear, not {self.fusion!r}")
        if self.normalisation not in ("minmax", "zscore", "sigmoid", "none"):
            raise BadInput(f"unknown normalisation {self.normalisation!r}")
        for name in ("k", "candidates", "budget", "cap_per_key", "documents", "ef_search", "lift_to"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise BadInput(f"{name} must be a positive whole number, not {v!r}")
        from .syntax import MODES

        if self.syntax not in MODES:
            raise BadInput(f"syntax must be one of {', '.join(MODES)}, not {self.syntax!r}")
        if not isinstance(self.ef_search, int) or isinstance(self.ef_search, bool) or not 1 <= self.ef_search <= 1000:
            raise BadInput(f"ef_search must be a whole number from 1 to 1000, not {self.ef_search!r}")
        for name in ("lift_vector", "lift_named"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise BadInput(f"{name} must be a whole number, 0 or more, not {value!r}")
        if self.candidates > 4096:
            raise BadInput("candidates must be at most 4096")
        for name in ("floor", "budget", "reserve", "name_weight"):
            if not isinstance(getattr(self, name), (int, float)) or isinstance(getattr(self, name), bool):
                raise BadInput(f"{name} must be a number")
        if self.name_weight < 0:
            raise BadInput("name_weight must be 0 (off) or more")
        if self.mmr_lambda is not None and not 0 <= self.mmr_lambda <= 1:
            raise BadInput("mmr_lambda must be between 0 and 1")
