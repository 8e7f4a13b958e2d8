"""``readingroom`` in a terminal: one module per command group."""
