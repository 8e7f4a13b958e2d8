from hypothesis import given, settings, strategies as st

from readingroom.ingest.chunking import ChunkSettings, chunk_text, embedding_text, markdown_sections
from readingroom.text import tokens

MD = """# Guide

Intro paragraph.

## Install

Run the installer.

```
# not a heading inside a fence
```

### Linux

Use the package.

## Use

Ask a question.
"""


def test_markdown_chunks_keep_their_heading_path():
    chunks = chunk_text(MD, "md")
    paths = [c.heading_path for c in chunks]
    assert paths == [("Guide",), ("Guide", "Install"), ("Guide", "Install", "Linux"), ("Guide", "Use")]
    assert "not a heading" in chunks[1].text  # the fenced line stayed in its section


def test_every_chunk_is_an_exact_slice_of_the_source():
    text = MD * 30
    for c in chunk_text(text, "md", ChunkSettings(target_tokens=60, overlap_tokens=10)):
        assert text[c.start:c.end] == c.text
        assert c.token_count == tokens.estimate(c.text)


def test_long_text_is_split_near_target_with_overlap():
    text = " ".join(f"Sentence number {i} says something." for i in range(400))
    chunks = chunk_text(text, "txt", ChunkSettings(target_tokens=100, overlap_tokens=20))
    assert len(chunks) > 5
    assert all(c.token_count <= 100 for c in chunks)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end  # consecutive chunks share some text
        assert b.start > a.start
    assert [c.doc_index for c in chunks] == list(range(len(chunks)))


def test_a_word_longer_than_the_target_is_still_chunked():
    text = "x" * 5000
    chunks = chunk_text(text, "txt", ChunkSettings(target_tokens=50, overlap_tokens=0))
    assert "".join(c.text for c in chunks) == text
    # in slices no larger than a chunk (it was one 5,000-character chunk), each an exact slice
    assert len(chunks) > 1 and all(c.token_count <= 50 and text[c.start:c.end] == c.text for c in chunks)
    blob = "Key: " + "QUJD" * 2000 + " ends here."
    chunks = chunk_text(blob, "txt", ChunkSettings(target_tokens=200, overlap_tokens=30))
    assert all(c.token_count <= 200 for c in chunks) and chunks[-1].text.endswith("ends here.")


def test_ten_thousand_headings_do_not_blow_up():
    text = "".join(f"{'#' * (1 + i % 6)} H{i}\nline {i}\n" for i in range(10_000))
    assert len(markdown_sections(text)) == 10_000


def test_embedding_text_prefixes_the_heading_path():
    c = chunk_text(MD, "md")[2]
    assert embedding_text(c).startswith("Guide > Install > Linux\n")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .\n#!é😀")), max_size=600),
       st.integers(10, 80), st.integers(0, 30))
def test_chunks_cover_all_non_space_text_in_order(text, target, overlap):
    chunks = chunk_text(text, "txt", ChunkSettings(target_tokens=target, overlap_tokens=overlap))
    covered = set()
    for c in chunks:
        assert text[c.start:c.end] == c.text
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


def test_code_without_sentence_ends_is_cut_between_lines_not_inside_them():
    # A source file has no full stops and often no blank lines: its chunks should start and
    # end at whole lines (a reader shown "i in range(10):" has lost the "for").
    text = "".join(f"total_{i} = compute(values[{i}], scale={i})\nprint(total_{i})\n" for i in range(120))
    chunks = chunk_text(text, "txt", ChunkSettings(target_tokens=120, overlap_tokens=20))
    assert len(chunks) > 3
    for c in chunks:
        assert c.start == 0 or text[c.start - 1] == "\n"
        assert c.end == len(text) or text[c.end] == "\n"
    assert any(b.start < a.end for a, b in zip(chunks, chunks[1:]))  # neighbours overlap by lines
