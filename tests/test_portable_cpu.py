"""The native side runs on any x86-64 with AVX2, whatever CPU a test machine has: the CLI
indexes a note and a scanned PDF (PDFium draws the page, OCR reads it), embeds with ONNX
Runtime, stores in SQLite + sqlite-vec and answers, as a Haswell (AVX2, FMA, no AVX-512) runs
it. QEMU's user-mode emulator (Debian's ``qemu-user``) plays that CPU: it reports a Haswell's
features through CPUID and kills a program that uses an instruction the CPU lacks with
SIGILL, as the CPU would; the first test checks that it does, so the second cannot pass by an
emulator that runs everything."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys

import pytest

import formats_extra

QEMU = shutil.which("qemu-x86_64")
CPU = "Haswell-v4"  # AVX, AVX2, FMA, F16C, BMI2; no AVX-512 (the oldest CPU the README promises)

PYTHON = sys.executable  # as called: a virtual environment's python finds its packages from there

# A function of machine code: one instruction zeroing a register, then ret.
RUN_CODE = """
import ctypes, mmap, sys
code = bytes.fromhex(sys.argv[1])
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
ctypes.CFUNCTYPE(None)(address)()
print("ran")
"""
AVX2 = "c5fdefc0c3"  # vpxor ymm0, ymm0, ymm0; ret
AVX512 = "62f17d48efc0c3"  # vpxord zmm0, zmm0, zmm0; ret


def _emulated(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    assert QEMU, "this test needs Debian's qemu-user (build.py test installs it)"
    return subprocess.run([QEMU, "-cpu", CPU, PYTHON, *args], capture_output=True, text=True, **kwargs)


def test_the_emulated_cpu_runs_avx2_and_dies_on_avx512_as_a_haswell_does():
    assert _emulated(["-c", RUN_CODE, AVX2], timeout=120).stdout.strip() == "ran"
    p = _emulated(["-c", RUN_CODE, AVX512], timeout=120)
    assert p.returncode == -signal.SIGILL and "ran" not in p.stdout


def test_the_cli_indexes_a_scan_and_answers_on_a_cpu_without_avx512(tmp_path, model_dir):
    from fpdf import FPDF

    from readingroom.extract import ocr

    assert ocr.available(), "OCR tests need Debian's tesseract-ocr and tesseract-ocr-eng (build.py test installs them)"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "harbour.md").write_text("# Harbour\n\nThe harbour master opens the lock gates two hours "
                                     "before high water.\n\nShips under forty metres may moor at the "
                                     "east quay without a pilot.\n")
    scan = FPDF()
    scan.add_page()
    scan.image(io.BytesIO(formats_extra.scan_png(formats_extra.SCAN_LINES)), x=10, y=10, w=190)
    (docs / "scan.pdf").write_bytes(bytes(scan.output()))
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..", "py_src"),
           "READINGROOM_MODEL_DIR": str(model_dir)}

    def cli(*args: str) -> str:
        p = _emulated(["-m", "readingroom", *args], cwd=tmp_path, env=env, timeout=600)
        assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
        return p.stdout

    out = cli("index", "docs")
    assert "2 indexed" in out and "0 failed" in out, out
    answer = cli("ask", "Can a ship of thirty metres moor without a pilot?")
    assert "Ships under forty metres may moor at the east quay without a pilot." in answer, answer
    answer = cli("ask", "Who fixed the waterwheel?")
    assert "Klinkhammer" in answer and "scan.pdf, page 1" in answer and "OCR" in answer, answer


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
