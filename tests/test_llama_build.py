"""The chat tests' llama-server: built for any x86-64 with AVX2, and a binary this CPU cannot run
fails with one line naming it and the signal (or the missing CPU feature), never a hang."""

from __future__ import annotations

import subprocess
import time

import pytest

import build
import llama_build
from readingroom.bench.llama_server import LlamaServer


def _stand_in(tmp_path, body: str):
    path = tmp_path / "llama-server"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def test_a_server_killed_by_sigill_fails_in_one_line_naming_binary_and_signal(tmp_path):
    binary = _stand_in(tmp_path, "echo 'llama threadpool init, n_threads = 1'; kill -ILL $$")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError) as err:
        LlamaServer(tmp_path / "model.gguf", binary=binary, timeout=900)
    message = str(err.value)
    assert "\n" not in message
    assert str(binary) in message and "SIGILL" in message and "instruction this CPU" in message
    # Noticed when it dies, not at the time-out: a wait that far apart from it needs no quiet machine.
    assert time.monotonic() - t0 < 300


def test_a_second_caller_waits_for_the_compile_under_way_instead_of_starting_one(tmp_path, monkeypatch):
    """`build.py test` compiles beside the first tests; a test asking for the server meanwhile waits."""
    import threading

    target = tmp_path / "llama-server"
    monkeypatch.setattr(llama_build, "CACHE", tmp_path)
    monkeypatch.setattr(llama_build, "binary_path", lambda: target)
    compiles, locked = [], threading.Event()

    def compile_(path):
        compiles.append(path)
        time.sleep(0.5)
        path.write_text("built")
        return path

    monkeypatch.setattr(llama_build, "_compile", compile_)
    got = []
    first = threading.Thread(target=lambda: got.append(llama_build.build(on_locked=locked.set)))
    first.start()
    locked.wait(10)
    assert llama_build.build() == target and target.read_text() == "built"  # waited for the first
    first.join()
    assert got == [target] and compiles == [target]


def test_check_runs_says_the_same_before_any_test_starts_the_server(tmp_path):
    binary = _stand_in(tmp_path, "kill -ILL $$")
    with pytest.raises(llama_build.LlamaBuildError) as err:
        llama_build.check_runs(binary, tmp_path / "model.gguf", timeout=30)
    assert str(err.value) == f"{binary} cannot run on this machine: killed by SIGILL: it uses an instruction this CPU does not have"


def test_other_signals_and_plain_exits_are_named_too(tmp_path):
    binary = _stand_in(tmp_path, "kill -SEGV $$")
    with pytest.raises(RuntimeError, match="killed by SIGSEGV"):
        LlamaServer(tmp_path / "model.gguf", binary=binary, timeout=900)
    binary = _stand_in(tmp_path, "echo 'error: failed to load model'; exit 1")
    with pytest.raises(RuntimeError, match="exited with 1: error: failed to load model"):
        LlamaServer(tmp_path / "model.gguf", binary=binary, timeout=900)


def test_a_cpu_without_avx2_is_refused_by_name_before_the_binary_runs(tmp_path):
    binary = _stand_in(tmp_path, "touch ran")
    haswell_less = "processor : 0\nflags : fpu sse sse2 ssse3 sse4_1 sse4_2 avx popcnt\n"
    with pytest.raises(llama_build.LlamaBuildError) as err:
        llama_build.check_runs(binary, tmp_path / "model.gguf", cpuinfo=haswell_less)
    assert "avx2, fma, f16c, bmi2" in str(err.value) and str(binary) in str(err.value)
    assert not (tmp_path / "ran").exists()


def test_this_cpu_has_what_the_build_needs():
    assert llama_build.missing_features(llama_build.cpu_flags()) == []


def test_the_built_server_uses_no_avx512_and_answers_here():
    """The binary `build.py test` compiled (cached): no zmm register anywhere in it, and a real
    completion from the app's chat model through it."""
    binary = llama_build.build()
    assert llama_build.zmm_instructions(binary) == 0
    # objdump does see AVX2: the count is not zero because objdump failed to read the file
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)], capture_output=True, text=True).stdout
    assert "%ymm" in out
    server = LlamaServer(build.chat_model_path(), threads=1, ctx=512, binary=binary)
    try:
        reply = server.complete([{"role": "user", "content": "Say hello."}], max_tokens=4)
    finally:
        server.close()
    assert reply["text"].strip() and reply["usage"].get("completion_tokens", 0) >= 1
