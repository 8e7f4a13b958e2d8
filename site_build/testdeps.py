"""What `python3 build.py test` installs on a fresh machine before any test runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from .chat import chat_model_path
from .fetch import ensure_node_modules
from .pins import BuildError, ROOT, run_checked


CHROMIUM = Path("/usr/bin/chromium")


# Debian's packages the tests need, by a file each installs: the browser; what compiles and checks
# llama-server; tesseract OCR with its English model; the R manuals (the PDFs the layout bench reads);
# QEMU's user-mode emulator, which runs the native side as a CPU without AVX-512 (test_portable_cpu.py).
APT_FOR_TESTS = {"/usr/bin/chromium": "chromium", "/usr/bin/cmake": "cmake", "/usr/bin/g++": "g++",
                 "/usr/bin/objdump": "binutils", "/usr/bin/tesseract": "tesseract-ocr",
                 "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata": "tesseract-ocr-eng",
                 "/usr/share/R/doc/manual/R-intro.pdf": "r-doc-pdf",
                 "/usr/bin/qemu-x86_64": "qemu-user"}


def install_test_dependencies() -> "LlamaCompile":
    """Everything the tests need on a fresh machine: Debian's packages (APT_FOR_TESTS), the Python
    package with its native and test extras (pinned in pyproject.toml), the npm packages
    (package-lock), and a llama-server compiled from pinned source for any x86-64 with AVX2
    (llama_build.py), checked to run here. On a fresh clone that compile takes 8-12 minutes, so
    it goes on beside the site's build and the first tests (``LlamaCompile``); the tests that
    need the server wait for it (``llama_build.build`` holds a lock while it compiles) and run
    last in their group (tests/conftest.py)."""
    missing = sorted({pkg for path, pkg in APT_FOR_TESTS.items() if not Path(path).exists()})
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env_apt = sudo + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
        run_checked(env_apt + ["update", "-qq"])
        run_checked(env_apt + ["install", "-y", "-qq", *missing])
    run_checked([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          "-e", ".[native,test]"])
    if shutil.which("pyenv"):  # pyenv's shims: without a rehash the new `readingroom` script is not on PATH
        subprocess.run(["pyenv", "rehash"], cwd=ROOT)
    ensure_node_modules()
    return LlamaCompile(chat_model_path())  # the model first: the site's build reads it too


class LlamaCompile:
    """The portable llama-server compiled and checked in a thread of its own (see
    ``install_test_dependencies``); ``result()`` waits for it and raises its error."""

    def __init__(self, model: Path):
        self._model = model
        self._error: BaseException | None = None
        locked = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(locked,), name="llama-server", daemon=True)
        self._thread.start()
        locked.wait()  # from here a test asking for the server waits for this compile

    def _run(self, locked: threading.Event) -> None:
        import llama_build

        try:
            llama_build.check_runs(llama_build.build(on_locked=locked.set), self._model)
        except llama_build.LlamaBuildError as e:
            self._error = BuildError(str(e))
        except BaseException as e:  # reported by result(), after the tests
            self._error = e
        finally:
            locked.set()

    def result(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error
