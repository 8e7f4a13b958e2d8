"""The retrieval stage: both legs (words and meaning), fusion, rules after it, spans and packing."""
