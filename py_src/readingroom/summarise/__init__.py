"""Whole-document questions: routing (``route``), the extractive summary (``extractive``),
its outline (``outline``), comparisons (``compare``), the summaries kept beside the index
(``stored``) and the orchestration (``run``)."""
