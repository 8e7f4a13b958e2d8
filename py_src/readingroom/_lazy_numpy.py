"""numpy imported where it is first used, not where it is imported.

In the page, importing numpy (its ~80 modules, after its wasm libraries are loaded) took about
0.3 s of the worker's start, and opening the library needs none of it: the page can show the
library and take a question before numpy is there. ``install()`` puts a stand-in under the name
``numpy`` before ``readingroom`` is imported; the first attribute anything reads from it
(``np.float32``) imports the real numpy, which from then on is ``sys.modules["numpy"]`` and
answers every lookup through the stand-in too. The retrieval worker calls it (the page loads
numpy's libraries and warms the search right after it says it is ready); natively nothing does.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types


class _Numpy(types.ModuleType):
    """Stands in for numpy until something reads an attribute of it."""

    def __getattr__(self, name: str):
        real = self.__dict__.get("_real")
        if real is None:
            real = _load(self)
        return getattr(real, name)


def _load(stand_in: _Numpy) -> types.ModuleType:
    if sys.modules.get("numpy") is stand_in:
        del sys.modules["numpy"]
    real = importlib.import_module("numpy")
    # Lookups through the stand-in now find numpy's own names directly; what numpy makes only
    # when asked (np.random, np.fft) still goes through __getattr__ to the real module.
    stand_in.__dict__.update(real.__dict__)
    stand_in.__dict__["_real"] = real
    return real


def install() -> bool:
    """Put the stand-in in place unless numpy is imported already; True if it was put."""
    if "numpy" in sys.modules:
        return False
    stand_in = _Numpy("numpy", "numpy, imported on first use (readingroom._lazy_numpy)")
    stand_in.__spec__ = importlib.machinery.ModuleSpec("numpy", None)
    sys.modules["numpy"] = stand_in
    return True


def _waiting() -> _Numpy | None:
    """The stand-in, while the real numpy is not imported yet."""
    module = sys.modules.get("numpy")
    return module if isinstance(module, _Numpy) and "_real" not in module.__dict__ else None


def ensure() -> None:
    """Import the real numpy now if only the stand-in is there (the page's warm-up, right after
    it is ready, so that the first search does not pay for it)."""
    stand_in = _waiting()
    if stand_in is not None:
        _load(stand_in)


def loaded() -> bool:
    """Whether the real numpy has been imported."""
    return "numpy" in sys.modules and _waiting() is None
