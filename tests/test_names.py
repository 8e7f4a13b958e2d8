"""The name leg: documents a question names by their name's words (search/names.py), and what
retrieval does with them."""

import pytest

from hits import hit
from helpers import run
from readingroom import NewDocument, Options
from readingroom.records import Filters
from readingroom.search import fuse
from readingroom.search.names import NameIndex, name_words


def test_a_document_is_named_by_most_of_its_name_and_not_by_its_extension_or_folder():
    ix = NameIndex([(1, "Arsenic and Old Lace (play)"), (2, "notes/Red Bull.txt"), (3, "lace-making.md"), (4, "Capsid")])
    assert name_words("notes/Red Bull.txt") == name_words("red bull") == {"red", "bull"}
    [m] = ix.named("Where does Arsenic and Old Lace take place?")
    assert m.doc_id == 1 and set(m.words) == {"arsen", "old", "lace"} and m.share >= 0.6
    assert [m.doc_id for m in ix.named("When did Red Bull come to the United States?")] == [2]
    assert ix.named("Which notes mention txt files?") == []  # folders and extensions are not names
    assert ix.named("What is lace?") == []  # a third of lace-making's name... and of the play's
    assert ix.named("What is the function of a viral capsid?") == []  # one word names nothing


def test_a_word_every_name_shares_weighs_little_and_numbers_are_never_names():
    ix = NameIndex([(i, f"Book {i} (novel)") for i in range(1, 30)] + [(40, "Small Steps (novel)"), (41, "12345")])
    assert ix.named("Is there a novel about this?") == []
    assert [m.doc_id for m in ix.named("Where did the book Small Steps take place?")] == [40]
    assert ix.named("What did study 12345 find?") == []


def test_most_named_first_at_most_the_limit():
    ix = NameIndex([(1, "Red Bull"), (2, "Flag of the United States"), (3, "United States"), (4, "Bull Run"),
                    (5, "The Bull and the Red Fox")])
    q = "when did red bull come to the united states"
    # whole names, the one whose words are rarer among the names first; the flag, the fox and the
    # run hold too little of their names
    assert [m.doc_id for m in ix.named(q, limit=5)] == [3, 1]
    assert [m.doc_id for m in ix.named(q, limit=1)] == [3]


def test_the_name_leg_adds_its_reciprocal_ranks_and_records_them():
    bases = {i: hit(i) for i in range(1, 5)}
    out = fuse.rrf([(1, 0.9), (2, 0.8)], [(1, 5.0)], bases, k=60, named=[(3, 0.2), (2, 0.8)], name_weight=1.0)
    by = {h.chunk_id: h for h in out}
    assert by[3].name_rank == 1 and by[3].fused == pytest.approx(1 / 61) and by[3].vector_rank is None
    assert by[2].fused == pytest.approx(1 / 62 + 1 / 62) and by[2].name_rank == 2
    assert by[1].name_rank is None
    off = fuse.rrf([(1, 0.9), (2, 0.8)], [(1, 5.0)], bases, k=60, named=[(3, 0.2)], name_weight=0.0)
    assert {h.chunk_id: h.fused for h in off}[3] == 0.0


PLAY = NewDocument("Arsenic and Old Lace.txt", text="The play is set in the Brewster family home in Brooklyn, "
                   "where two elderly aunts poison lonely gentlemen with elderberry wine.")
OTHERS = [NewDocument("gardening.txt", text="Roses need full sun and well-drained soil; prune them in early spring."),
          NewDocument("trains.txt", text="The night train leaves the central station at eleven and arrives at dawn.")]


def test_retrieval_searches_the_chunks_of_a_document_the_question_names(library):
    run(library.add([PLAY, *OTHERS]))
    q = "Where does Arsenic and Old Lace take place?"
    r = run(library.retrieve(q))
    assert [d["doc_name"] for d in r.stats["named"]] == ["Arsenic and Old Lace.txt"]
    assert r.results[0].doc_name == "Arsenic and Old Lace.txt" and "Brooklyn" in r.results[0].text
    assert r.evidence[0].name_rank == 1 and r.stats["counts"]["named"] == 1
    off = run(library.retrieve(q, Options(name_weight=0)))
    assert "named" not in off.stats and all(h.name_rank is None for h in off.evidence)
    # a filter that leaves the named document out leaves the leg empty
    other = run(library.retrieve(q, Options(filters=Filters(doc_names=("gardening.txt",)))))
    assert "named" not in other.stats and {s.doc_name for s in other.results} <= {"gardening.txt"}


FESTIVALS = [NewDocument(f"festival{i}.txt", text=f"The {town} festival takes place in the old town square every "
                         f"summer, and the parade takes place on its last day.")
             for i, town in enumerate(("lantern", "harvest", "kite", "jazz", "cheese", "boat", "film", "poetry"))]


def test_a_named_document_is_lifted_above_passages_that_only_share_the_question_s_other_words(library):
    """Eight passages say "take place" and mean a place; the play's passage shares no word with
    the question but its name, nor is it close enough in meaning for the vector leg (only the
    name leg finds it). Fused, it ranks below them all; lifted (``lift_named``, which
    ``ask`` uses), its best passage ranks right after the fourth, where an answer is looked for."""
    from readingroom.answer.ask import ASK_RETRIEVAL
    from readingroom.errors import BadInput

    play = NewDocument("Arsenic and Old Lace.txt",
                       text="Act one opens in a parlour in Brooklyn, where the aunts serve tea to a visitor from the church.")
    run(library.add([play, *FESTIVALS]))
    q = "Where does Arsenic and Old Lace take place?"
    docs = lambda r: [s.doc_name for s in r.results]  # noqa: E731
    plain = run(library.retrieve(q, Options(k=10, lift_named=0)))
    lifted = run(library.retrieve(q, Options(k=10, lift_named=1)))
    assert "Arsenic and Old Lace.txt" in docs(plain) and docs(plain).index("Arsenic and Old Lace.txt") > 4, docs(plain)
    assert docs(lifted).index("Arsenic and Old Lace.txt") <= 4, docs(lifted)
    assert ASK_RETRIEVAL["lift_named"] == 1
    asked = run(library.ask(q))
    assert asked.retrieval.stats["options"]["lift_named"] == 1
    assert any(s.doc_name == "Arsenic and Old Lace.txt" for s in asked.retrieval.packed.spans[:5])
    with pytest.raises(BadInput, match="lift_named must be a whole number"):
        Options.from_dict({"lift_named": -1})
