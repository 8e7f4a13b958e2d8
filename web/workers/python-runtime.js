// Pyodide, numpy and readingroom for the retrieval worker, as fast as a start can be: the build's
// manifest, memory snapshot and site-packages image are fetched the moment the worker starts,
// each checked (SRI, the snapshot's magic number), with the slow way (loadPackage) behind each.

import { loadPyodide } from './vendor/pyodide/pyodide.mjs';

const here = (path) => new URL(path, import.meta.url).href;

// Everything Python needs is fetched at once when the worker starts, in parallel: the build's
// manifest names the snapshot, our wheel and the compiled bytecode; Pyodide's lock names numpy's.
const manifestReady = fetch(here('./build-manifest.json')).then((response) => response.json());
manifestReady.catch(() => {}); // loadRuntime falls back

/** A file of the build as bytes; `integrity` (SRI) makes a damaged or swapped file fail here. */
async function fetchBytes(path, integrity) {
  const response = await fetch(here(path), integrity ? { integrity } : {});
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A build asset's bytes, checked against the manifest's hash for it. */
function assetBytes(manifest, path) {
  const asset = manifest.assets?.find((a) => a.path === path);
  const bytes = fetchBytes(path, asset?.integrity);
  bytes.catch(() => {}); // whoever awaits it reports the failure
  return bytes;
}

/** numpy's wheel as Pyodide's lock names it, with the lock's sha256 as loadPackage would check it. */
async function numpyWheel() {
  const lock = await (await fetch(here('./vendor/pyodide/pyodide-lock.json'))).json();
  const { file_name: file, sha256 } = lock.packages.numpy;
  const integrity = `sha256-${btoa(String.fromCharCode(...sha256.match(/../g).map((h) => parseInt(h, 16))))}`;
  return { file, bytes: await fetchBytes(`./vendor/pyodide/${file}`, integrity) };
}

/**
 * The build may ship a Pyodide memory snapshot: the heap of this very Pyodide right after start-up
 * (and the stdlib modules readingroom and numpy import), made by build.py. build-manifest.json
 * names it: "pyodide_snapshot": {"path": ..., "gzip": true|false}. Returns Promise<ArrayBuffer>.
 */
const SNAPSHOT_MAGIC = 1886286592; // API.restoreSnapshot in pyodide.asm.js

function snapshotBytes(entry, report) {
  const bytes = fetch(here(entry.path)).then((response) => {
    if (!response.ok) throw new Error(`${entry.path}: HTTP ${response.status}`);
    const body = entry.gzip ? response.body.pipeThrough(new DecompressionStream('gzip')) : response.body;
    return new Response(body).arrayBuffer();
  }).then((buffer) => {
    // Pyodide trusts the snapshot's size before it checks its header, and does not recover from
    // a wrong one: check the magic number (Pyodide 0.27's) here, so a bad file only costs a retry.
    if (buffer.byteLength < 1 << 20 || new Uint32Array(buffer, 0, 1)[0] !== SNAPSHOT_MAGIC) {
      throw new Error(`${entry.path} is not a Pyodide memory snapshot`);
    }
    report.mark('snapshotBytes');
    return buffer;
  });
  bytes.catch(() => {}); // loadPyodide sees the failure and we fall back
  return bytes;
}

// The extension modules `import numpy` itself needs (numpy 2.0: the core, and linalg, which
// numpy.lib imports). loadPackage('numpy') compiles and instantiates all 19 of the wheel's before
// anything can import it (7.5 MB of wasm: random, fft, lapack_lite and test modules too); these
// are 4.5 MB of that. Any other one loads when something imports it (dlopen, synchronously, which
// a worker may do).
const NUMPY_EAGER = ['numpy/_core/_multiarray_umath.', 'numpy/linalg/_umath_linalg.'];

/** Unpack a wheel into site-packages, as loadPackage does, without loading its libraries. */
function unpack(py, bytes, filename) {
  py._api.package_loader.unpack_buffer.callKwargs({
    buffer: bytes, filename, extract_dir: py._api.sitepackages, calculate_dynlibs: false,
    installer: 'pyodide.loadPackage', source: 'pyodide',
  });
}

/**
 * The build's site-packages image (build.py site_image: numpy, readingroom and their .pyc files),
 * inflated by the browser as it downloads. Promise<ArrayBuffer>.
 */
function siteImage(manifest) {
  const { path } = manifest.pyodide_site;
  const integrity = manifest.assets?.find((a) => a.path === path)?.integrity;
  const bytes = fetch(here(path), integrity ? { integrity } : {}).then((response) => {
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return new Response(response.body.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  });
  bytes.catch(() => {}); // installPackages falls back to the wheels
  return bytes;
}

/** Writes the image's files into site-packages; each file's bytes stay where they are (canOwn). */
function writeSite(py, buffer) {
  const headLength = new DataView(buffer).getUint32(0, true);
  const files = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, headLength)));
  const site = py._api.sitepackages;
  const made = new Set();
  let at = 4 + headLength;
  for (const { path, size } of files) {
    const dir = `${site}/${path}`.slice(0, `${site}/${path}`.lastIndexOf('/'));
    if (!made.has(dir)) {
      py.FS.mkdirTree(dir);
      made.add(dir);
    }
    py.FS.writeFile(`${site}/${path}`, new Uint8Array(buffer, at, size), { canOwn: true });
    at += size;
  }
  if (at !== buffer.byteLength) throw new Error('the site-packages image is damaged');
}

/** Loads NUMPY_EAGER's libraries ahead, asynchronously: compiling runs off this thread. */
async function loadNumpyLibraries(py) {
  const site = py._api.sitepackages;
  for (const prefix of NUMPY_EAGER) {
    const dir = `${site}/${prefix.slice(0, prefix.lastIndexOf('/'))}`;
    const stem = prefix.slice(prefix.lastIndexOf('/') + 1);
    const name = py.FS.readdir(dir).find((n) => n.startsWith(stem) && n.endsWith('.so'));
    if (!name) throw new Error(`numpy has no ${prefix}*.so`);
    await py._api.loadDynlib(`${dir}/${name}`, false, [`${site}/numpy.libs`]);
  }
}

/**
 * numpy and readingroom (and their compiled bytecode) into site-packages: from the build's image,
 * or else from the two wheels. These are Pyodide 0.27's internals (pyodide._api): on any surprise,
 * loadPackage does it the slow way. Returns {loadNumpy: () => Promise}, which loads numpy's
 * libraries: opening the library needs no numpy (readingroom._lazy_numpy), so the worker loads
 * them after the page is ready, before anything can import numpy.
 */
export async function installPackages(py, downloads, report) {
  let loadNumpy = async () => {};
  try {
    const image = await downloads.site?.catch((err) => {
      console.warn('Reading Room: no site-packages image, unpacking the wheels:', err?.message ?? err);
    });
    if (image) {
      writeSite(py, image);
    } else {
      const numpy = await numpyWheel();
      unpack(py, numpy.bytes, numpy.file);
      unpack(py, await assetBytes(downloads.manifest ?? {}, downloads.wheelPath), downloads.wheelPath.split('/').pop());
    }
    const libraries = loadNumpyLibraries(py).catch(async (err) => {
      console.warn('Reading Room: loading numpy\'s libraries failed, using loadPackage:', err?.message ?? err);
      await py.loadPackage('numpy', { messageCallback: () => {} });
    });
    loadNumpy = () => libraries;
  } catch (err) {
    console.warn('Reading Room: installing numpy and readingroom failed, using loadPackage:', err?.message ?? err);
    await py.loadPackage('numpy', { messageCallback: () => {} });
    // A wheel URL installs as-is: no dependency resolution, so no index is ever consulted.
    await py.loadPackage(here(downloads.wheelPath), { messageCallback: () => {} });
  }
  report.mark('site');
  // Python's finder for site-packages lists the folder again. (importlib.invalidate_caches()
  // would too, but it imports importlib.metadata and email first: 0.3 s of compiling, in node.)
  const finder = py._api.sys.path_importer_cache.get(py._api.sitepackages);
  finder?.invalidate_caches();
  finder?.destroy();
  report.mark('wheel');
  return { loadNumpy };
}

/**
 * Pyodide, numpy and readingroom: nothing here depends on the page's start message. `report`:
 * {mark(phase), progress(stage, fields)}: the worker's start-up timings and progress.
 */
export async function loadRuntime(report) {
  report.mark('worker');
  report.progress('python', { status: 'loading Python' });
  const options = {
    indexURL: here('./vendor/pyodide/'),
    stdout: (line) => console.log('[python]', line),
    stderr: (line) => console.warn('[python]', line),
  };
  const manifest = await manifestReady.catch(() => null);
  report.mark('manifest');
  const downloads = { manifest, wheelPath: manifest?.wheel, site: manifest?.pyodide_site ? siteImage(manifest) : null };
  let py = null;
  if (manifest?.pyodide_snapshot?.path) {
    // Restoring a memory snapshot skips the interpreter's own start-up (seconds of wasm).
    py = await loadPyodide({ ...options, _loadSnapshot: snapshotBytes(manifest.pyodide_snapshot, report) }).catch((err) => {
      console.warn('Reading Room: Python snapshot not usable, starting Python from scratch:', err?.message ?? err);
      return null;
    });
    report.mark(py ? 'snapshot' : 'snapshotFailed');
  }
  py ??= await loadPyodide(options);
  report.mark('pyodide');
  report.progress('python', { status: 'loading numpy' });
  return { py, downloads };
}
