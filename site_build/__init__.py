"""The steps of `python3 build.py`, one module each (build.py runs them in order): `pins`, `fetch`,
`wheel`, `chat`, `pyodide_image`, `assets`, `bundle`, `serve`, `testdeps`.
"""
