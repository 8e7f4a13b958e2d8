"""``readingroom`` in a terminal: one module per command group."""

from .._threads import one_blas_thread

one_blas_thread()  # before any command module imports numpy (see _threads.py)
