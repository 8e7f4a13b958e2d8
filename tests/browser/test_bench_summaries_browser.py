"""``bench summaries --browser``: a PDF indexed natively (its summary kept), imported into the
page, and the time from Summarise (the button, then the question in words) to the outline on
screen measured in the page; the native times beside it. Numbers are checked for being real,
never against a time."""

from __future__ import annotations

from formats import report_pdf

from readingroom.bench.summaries_page import page_timing


def test_page_timing_of_a_pdf_summary(browser, site, tmp_path, model_dir):
    pdf = tmp_path / "guide.pdf"
    pdf.write_bytes(report_pdf())
    g = page_timing(pdf, runs=2, browser=browser, url=site + "/")
    assert g["document"] == "guide.pdf" and g["pages"] == 5
    assert g["chunks"] == g["imported_chunks"] > 0 and g["points"] >= 1
    assert len(g["runs_ms"]) == len(g["asked_in_words_ms"]) == 2
    assert all(ms > 0 for ms in g["runs_ms"] + g["asked_in_words_ms"])
    assert min(g["runs_ms"]) <= g["ask_to_screen_ms"] <= max(g["runs_ms"])  # the median
    # four outlines reached the screen, each with every point of the stored summary
    assert g["points_on_screen"] == 4 * g["points"]
    assert g["native_ms"] > 0 and g["native_compute_ms"] > 0 and len(g["load_average"]) == 3
