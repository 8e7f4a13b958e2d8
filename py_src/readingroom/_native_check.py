"""Exit 0 when the native side's packages import (build.py asks before it indexes the demo corpus)."""

import apsw  # noqa: F401
import onnxruntime  # noqa: F401
import sqlite_vec  # noqa: F401
import tokenizers  # noqa: F401
