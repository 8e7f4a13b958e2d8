"""The benchmarks (``python -m readingroom.bench``)."""

from .._threads import one_blas_thread

one_blas_thread()  # before any bench module imports numpy (see _threads.py)
