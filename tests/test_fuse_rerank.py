import numpy as np
import pytest
from hypothesis import given, strategies as st

from hits import hit
from readingroom.search import fuse, rerank
from readingroom.records import Hit
from readingroom.search.rerank import Boost


def bases(n):
    return {i: hit(i) for i in range(1, n + 1)}


def test_rrf_sums_reciprocal_ranks_and_records_the_breakdown():
    out = fuse.rrf([(1, 0.9), (2, 0.8)], [(2, 7.0), (3, 5.0)], bases(3), k=60)
    assert [h.chunk_id for h in out] == [2, 1, 3]
    two = out[0]
    assert two.fused == pytest.approx(1 / 62 + 1 / 61)
    assert (two.vector_rank, two.vector_sim, two.lexical_rank, two.lexical_score) == (2, 0.8, 1, 7.0)
    assert out[2].vector_rank is None and out[2].lexical_rank == 2


def test_rrf_ties_break_by_chunk_id_deterministically():
    a = fuse.rrf([(5, 0.5)], [(4, 1.0)], bases(5))
    b = fuse.rrf([(5, 0.5)], [(4, 1.0)], bases(5))
    assert [h.chunk_id for h in a] == [h.chunk_id for h in b] == [4, 5]


def test_a_chunk_whose_vector_is_still_to_come_counts_its_words_for_both_legs():
    """Words first: chunk 3 (a file being embedded) holds the words best, but the vector leg
    cannot see it yet; chunks 1 and 2 merely have vectors. Counted once, its words would lose
    to both; counted for both legs, it leads. A chunk the vector leg saw and passed over (2,
    in the lexical leg only below) keeps its words counted once."""
    vector, lexical = [(1, 0.9), (4, 0.8)], [(3, 5.0), (1, 4.0), (2, 3.0)]
    assert [h.chunk_id for h in fuse.rrf(vector, lexical, bases(4))][:2] == [1, 3]
    out = fuse.rrf(vector, lexical, bases(4), unjudged={3})
    assert [h.chunk_id for h in out][:2] == [3, 1]
    assert out[0].score == pytest.approx(2 / 61) and out[0].vector_rank is None
    two = next(h for h in out if h.chunk_id == 2)
    assert two.score == pytest.approx(1 / 63)
    # weighted legs: the words stand for the sum of both weights; no lexical weight, nothing to scale
    assert fuse.rrf(vector, lexical, bases(4), weights=(3.0, 1.0), unjudged={3})[0].score == pytest.approx(4 / 61)
    assert 3 not in [h.chunk_id for h in fuse.rrf(vector, lexical, bases(4), weights=(1.0, 0.0), unjudged={3})
                     if h.score > 0]
    lin = fuse.linear(vector, lexical, bases(4), (0.5, 0.5), "minmax", unjudged={3})
    assert lin[0].chunk_id == 3 and lin[0].score == pytest.approx(1.0)


@pytest.mark.parametrize("how", ["minmax", "zscore", "sigmoid", "none"])
def test_linear_blend_normalisations(how):
    out = fuse.linear([(1, 0.9), (2, 0.1)], [(2, 10.0), (3, 1.0)], bases(3), (0.5, 0.5), how)
    assert {h.chunk_id for h in out} == {1, 2, 3}
    assert out == sorted(out, key=lambda h: (-h.score, h.chunk_id))


def test_normalise():
    assert fuse.normalise([1, 3], "minmax") == [0.0, 1.0]
    assert fuse.normalise([2, 2], "minmax") == [1.0, 1.0]
    z = fuse.normalise([1, 3], "zscore")
    assert z == pytest.approx([-1, 1])
    assert fuse.normalise([0, 0], "sigmoid") == [0.5, 0.5]


def test_floor_applies_to_vector_leg_only():
    kept, below = rerank.floor_vector_leg([(1, 0.5), (2, 0.1)], 0.25)
    assert kept == [(1, 0.5)] and below == [(2, 0.1)]
    out = fuse.rrf(kept, [(2, 3.0)], bases(2))  # the lexical hit survives
    assert {h.chunk_id for h in out} == {1, 2}


def test_boost_math_and_breakdown():
    hits = [hit(1, score=0.03, meta={"author": "Ada"}, heading=("Ch1",)), hit(2, score=0.02)]
    out = rerank.apply_boosts(hits, [Boost("section", ("Ch1",), 1.5, "same_section"),
                                     Boost("author", ("Ada",), 1.1, "author")])
    assert out[0].score == pytest.approx(0.03 * 1.5 * 1.1)
    assert out[0].boosts == {"same_section": 1.5, "author": 1.1}
    assert out[1].boosts == {} and out[1].score == 0.02


def test_boost_can_lift_a_lower_hit():
    hits = [hit(1, score=0.030), hit(2, score=0.025, meta={"tradition": "x"})]
    out = rerank.apply_boosts(hits, [Boost("tradition", ("x",), 1.5)])
    assert [h.chunk_id for h in out] == [2, 1]


@given(st.lists(st.floats(0.0001, 1.0), min_size=2, max_size=30), st.floats(0.5, 3.0))
def test_equal_boosts_never_invert_order(scores, factor):
    hits = [hit(i + 1, score=s, meta={"tag": "t"}) for i, s in enumerate(scores)]
    before = [h.chunk_id for h in sorted(hits, key=lambda h: (-h.score, h.chunk_id))]
    after = [h.chunk_id for h in rerank.apply_boosts(hits, [Boost("tag", ("t",), factor)])]
    assert after == before


def test_boost_factor_must_be_positive():
    from readingroom import BadInput

    with pytest.raises(BadInput):
        Boost.from_dict({"field": "author", "values": ["x"], "factor": 0})


def test_diversity_cap_backfills_from_lower_ranks():
    hits = [hit(1, doc=1), hit(2, doc=1), hit(3, doc=1), hit(4, doc=2), hit(5, doc=1), hit(6, doc=3)]
    kept, dropped = rerank.diversity_cap(hits, "doc", 2, 4)
    assert [h.chunk_id for h in kept] == [1, 2, 4, 6]
    assert [h.chunk_id for h in dropped] == [3, 5]
    assert all(h.dropped == "cap" for h in dropped)


def test_diversity_cap_by_metadata_key():
    hits = [hit(i, doc=i, meta={"author": "A" if i < 4 else "B"}) for i in range(1, 6)]
    kept, _ = rerank.diversity_cap(hits, "author", 1, 3)
    assert [h.chunk_id for h in kept] == [1, 4]  # only two authors exist: fewer than k is honest


def test_mmr_prefers_diverse_hits():
    hits = [hit(1, score=1.0), hit(2, score=0.99), hit(3, score=0.9)]
    e1, e3 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    vectors = {1: e1, 2: e1, 3: e3}  # 2 is a near copy of 1
    out = rerank.mmr(hits, vectors, k=2, lam=0.5)
    assert [h.chunk_id for h in out] == [1, 3]


def test_lift_moves_the_given_chunks_up_to_just_below_the_rank_given():
    hits = [hit(i, score=1.0 - i / 100) for i in range(1, 9)]  # 1 best ... 8 worst
    out = rerank.lift(hits, [7, 2], 3)
    assert [h.chunk_id for h in out] == [1, 2, 3, 7, 4, 5, 6, 8]
    seven = out[3]
    assert seven.score == hits[2].score and seven.fused == hits[6].fused  # the debug view keeps its fused score
    assert rerank.lift(hits, [], 3) == hits and rerank.lift(hits[:3], [3], 3) == hits[:3]


def test_a_stored_row_makes_the_hit_the_constructor_makes():
    row = (7, 2, "notes.md", "md", 3, "", 10, 90, "abc", 21, ("Intro",), 4, {"tag": "x"})
    fast, plain = Hit.stored(*row), Hit(*row)
    assert fast == plain and list(fast.__dict__) == list(plain.__dict__)
    assert fast.to_dict() == plain.to_dict()
    assert fast.boosts is not Hit.stored(*row).boosts  # a fresh default each time, as the constructor's
    with pytest.raises(TypeError):
        Hit.stored(*row[:5])
