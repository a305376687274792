"""@cuda.jit(cache=True): a fresh process finds the translation on disk and
skips translating (the translator is made to fail there to prove it); a
changed global value, argument type or device function is a new entry."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

from cudakit import cuda
from cudakit.cuda import disk_cache
from cudakit.cuda.translate.parse import parse_function
from cudakit.cuda.translate import types as t

PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    from cudakit import cuda
    import cudakit.cuda.dispatcher as dispatcher

    SCALE = float(sys.argv[1])
    if sys.argv[2] == "forbid":
        def refuse(*args, **kwargs):
            raise AssertionError("translated again")
        dispatcher.translate_kernel = refuse

    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    @cuda.jit(cache=True)
    def scaled(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = twice(x[i]) * SCALE

    x = np.random.default_rng().standard_normal(45).astype(np.float32)
    out = cuda.device_array(45, np.float32)
    scaled[2, 32](cuda.to_device(x), out)
    assert np.allclose(out.copy_to_host(), 2 * x * np.float32(SCALE), rtol=1e-6)
    print("hits", sum(scaled.stats.cache_hits.values()),
          "misses", sum(scaled.stats.cache_misses.values()))
''')


def run(tmp_path, scale: str, mode: str, **extra: str) -> str:
    env = dict(os.environ, CUDAKIT_CACHE_DIR=str(tmp_path / "cache"), **extra)
    done = subprocess.run([sys.executable, str(tmp_path / "program.py"), scale, mode],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_fresh_process_skips_the_translation(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    assert run(tmp_path, "3.0", "translate") == "hits 0 misses 1"
    assert run(tmp_path, "3.0", "forbid") == "hits 1 misses 0"
    # Another value of the global the kernel reads: another entry.
    assert run(tmp_path, "5.0", "translate") == "hits 0 misses 1"
    assert run(tmp_path, "5.0", "forbid") == "hits 1 misses 0"
    entries = [f for _, _, files in os.walk(tmp_path / "cache" / "python-kernels")
               for f in files]
    assert len(entries) == 2 and all(f.endswith(".pickle") for f in entries)
    # CUDAKIT_CACHE=0 turns the disk off for translations too.
    assert run(tmp_path, "7.0", "translate", CUDAKIT_CACHE="0") == "hits 0 misses 1"
    assert run(tmp_path, "7.0", "translate", CUDAKIT_CACHE="0") == "hits 0 misses 1"


LIMIT = 3


@cuda.jit(device=True)
def helper(x):
    return x + LIMIT


def reads_globals(out):
    out[0] = helper(LIMIT)


def test_key_follows_globals_device_functions_types_and_options(monkeypatch):
    global LIMIT
    parsed = parse_function(reads_globals)
    args = (t.ArrayT(t.float32, 1, "C"),)
    first = disk_cache.entry_key(parsed, args, {"cache": True})
    assert first == disk_cache.entry_key(parse_function(reads_globals), args, {"cache": True})
    assert first != disk_cache.entry_key(parsed, (t.ArrayT(t.float64, 1, "C"),),
                                         {"cache": True})
    assert first != disk_cache.entry_key(parsed, args, {"cache": True, "fastmath": True})
    monkeypatch.setattr(sys.modules[__name__], "LIMIT", 4)
    assert LIMIT == 4
    assert first != disk_cache.entry_key(parsed, args, {"cache": True})


def test_cache_true_in_process_gives_the_same_results(tmp_path):
    kernel = cuda.jit(cache=True)(reads_globals)
    out = cuda.to_device(np.zeros(1, np.float32))
    kernel[1, 1](out)
    assert out.copy_to_host()[0] == 2 * LIMIT
