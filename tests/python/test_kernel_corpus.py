"""The kernel corpus (tests/data/kernel_corpus/): CUDA C sources as users
write them, each with a manifest (kernel, block, sizes, argument kinds).
Each compiles for sm_90 with NVRTC (no GPU needed), runs on the current
backend against a numpy reference on fresh random input, and on a GPU
(marker `gpu`) matches the CPU backend's result for the same input."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cudakit.compiler as compiler
import cudakit.driver as drv

CORPUS = Path(__file__).resolve().parents[1] / "data" / "kernel_corpus"
SEED = 20261202


@dataclass
class Entry:
    name: str
    manifest: dict[str, Any]

    @property
    def source(self) -> str:
        return (CORPUS / self.manifest["source"]).read_text()

    @property
    def block(self) -> tuple[int, int, int]:
        return tuple(self.manifest["block"])  # type: ignore[return-value]

    @property
    def sizes(self) -> dict[str, int]:
        return self.manifest["sizes"]

    def arguments(self) -> list[tuple[str, str, str]]:
        """(direction or "", dtype name, argument name) for each manifest argument."""
        out = []
        for text in self.manifest["args"]:
            words = text.split()
            if len(words) == 3:
                out.append((words[0], words[1], words[2]))
            else:
                out.append(("", words[0], words[1]))
        return out


ENTRIES = [Entry(p.stem, json.loads(p.read_text())) for p in sorted(CORPUS.glob("*.json"))]


@dataclass
class Launch:
    """One launch of a corpus kernel: the argument values by manifest name,
    the grid, and the numpy reference of each output."""
    values: dict[str, Any]
    grid: tuple[int, int]
    expected: dict[str, np.ndarray] = field(default_factory=dict)


def blocks(size: int, per_block: int) -> int:
    return -(-size // per_block)


def vector_add(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    a, b = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    return Launch({"a": a, "b": b, "c": np.empty_like(a), "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1), {"c": a + b})


def matmul_tiled(rng: np.random.Generator, e: Entry) -> Launch:
    m, k, n = e.sizes["m"], e.sizes["k"], e.sizes["n"]
    a, b = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
    return Launch({"A": a, "B": b, "C": np.empty((m, n), np.float32), "m": np.int32(m),
                   "k": np.int32(k), "n": np.int32(n)},
                  (blocks(n, 16), blocks(m, 16)), {"C": a.astype(np.float64) @ b})


def mean_filter_3x3(rng: np.random.Generator, e: Entry) -> Launch:
    w, h = e.sizes["width"], e.sizes["height"]
    image = rng.random((h, w), np.float32)
    padded = np.pad(image.astype(np.float64), 1, mode="edge")
    expected = sum(padded[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) / 9
    return Launch({"in": image, "out": np.empty_like(image), "width": np.int32(w),
                   "height": np.int32(h)},
                  (blocks(w, e.block[0]), blocks(h, e.block[1])), {"out": expected})


def reduce_sum(rng: np.random.Generator, e: Entry) -> Launch:
    n, per_block = e.sizes["n"], 2 * e.block[0]
    grid = blocks(n, per_block)
    data = rng.standard_normal(n, np.float32)
    padded = np.zeros(grid * per_block)
    padded[:n] = data
    return Launch({"in": data, "partial": np.empty(grid, np.float32), "n": np.int32(n)},
                  (grid, 1), {"partial": padded.reshape(grid, per_block).sum(axis=1)})


def scan_inclusive(rng: np.random.Generator, e: Entry) -> Launch:
    n, block = e.sizes["n"], e.block[0]
    data = rng.integers(-1000, 1000, n, dtype=np.int32)
    expected = np.concatenate([np.cumsum(data[s:s + block]) for s in range(0, n, block)])
    return Launch({"in": data, "out": np.empty_like(data), "n": np.int32(n)},
                  (blocks(n, block), 1), {"out": expected.astype(np.int32)})


def transpose(rng: np.random.Generator, e: Entry) -> Launch:
    w, h = e.sizes["width"], e.sizes["height"]
    matrix = rng.standard_normal((h, w), np.float32)
    return Launch({"in": matrix, "out": np.empty((w, h), np.float32), "width": np.int32(w),
                   "height": np.int32(h)},
                  (blocks(w, 32), blocks(h, 32)), {"out": matrix.T.copy()})


def histogram(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    data = rng.integers(0, 256, n, dtype=np.uint8)
    return Launch({"data": data, "bins": np.zeros(256, np.uint32), "n": np.int32(n)},
                  (e.sizes["blocks"], 1),
                  {"bins": np.bincount(data, minlength=256).astype(np.uint32)})


def nbody_step(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    dt, softening2 = np.float32(0.01), np.float32(0.01)
    pos = rng.standard_normal((n, 4)).astype(np.float32)
    pos[:, 3] = rng.uniform(0.5, 1.5, n)
    vel = (0.1 * rng.standard_normal((n, 4))).astype(np.float32)
    p = pos.astype(np.float64)
    r = p[None, :, :3] - p[:, None, :3]  # r[i, j] = pos[j] - pos[i]
    dist2 = (r * r).sum(axis=2) + float(softening2)
    acc = (r * (p[None, :, 3] * dist2 ** -1.5)[:, :, None]).sum(axis=1)
    new_vel = vel.astype(np.float64)
    new_vel[:, :3] += acc * float(dt)
    new_pos = p.copy()
    new_pos[:, :3] += new_vel[:, :3] * float(dt)
    return Launch({"pos": pos, "new_pos": np.empty_like(pos), "vel": vel, "n": np.int32(n),
                   "dt": dt, "softening2": softening2},
                  (blocks(n, e.block[0]), 1), {"new_pos": new_pos, "vel": new_vel})


def mandelbrot(rng: np.random.Generator, e: Entry) -> Launch:
    w, h, max_iter = e.sizes["width"], e.sizes["height"], e.sizes["max_iter"]
    # A random window over the set's edge (fresh input each run).
    x0, y0 = -2.2 + rng.uniform(0, 0.1), -1.25 + rng.uniform(0, 0.1)
    step = 3.0 / w
    c = (x0 + np.arange(w) * step)[None, :] + 1j * (y0 + np.arange(h) * step)[:, None]
    zr, zi = np.zeros((h, w)), np.zeros((h, w))
    counts = np.zeros((h, w), np.int32)
    for _ in range(max_iter):
        running = zr * zr + zi * zi <= 4.0
        t = zr * zr - zi * zi + c.real
        zi = np.where(running, 2.0 * zr * zi + c.imag, zi)
        zr = np.where(running, t, zr)
        counts += running
    return Launch({"counts": np.empty((h, w), np.int32), "width": np.int32(w),
                   "height": np.int32(h), "x0": np.float64(x0), "y0": np.float64(y0),
                   "step": np.float64(step), "max_iter": np.int32(max_iter)},
                  (blocks(w, e.block[0]), blocks(h, e.block[1])), {"counts": counts})


def complex_math(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    # Away from the branch cuts of log/sqrt/pow and the poles of tan.
    x = rng.uniform(0.2, 1.5, n) + 1j * rng.uniform(-1, 1, n)
    y = rng.choice([-1, 1], n) * rng.uniform(0.3, 1, n) + 1j * rng.uniform(-1, 1, n)
    outputs = {name: np.empty(n, np.complex128) for name in ("arith", "roots", "logs", "trig")}
    expected = {
        "arith": x * y + x / y - np.conj(x) * np.abs(y) + 2.0 * x - y / 3.0,
        "roots": np.sqrt(x) + np.exp(y) + np.abs(x) * np.exp(1j * np.angle(y)),
        "logs": np.log(x) + x ** y + y ** 2 + np.log10(y),
        "trig": np.sin(x) * np.cos(y) + np.tanh(x) - np.sinh(y) + np.cosh(x) / np.tan(y),
        "norms": np.abs(x) ** 2 + y.real * x.imag,
    }
    return Launch({"a": x, "b": y, **outputs, "norms": np.empty(n), "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1), expected)


def template_axpy(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    dtype = np.float32 if e.manifest["kernel"] == "axpy<float>" else np.float64
    alpha = dtype(rng.uniform(-2, 2))
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    return Launch({"alpha": alpha, "x": x, "y": y.copy(), "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1), {"y": alpha * x + y})


def standard_headers(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    x = rng.standard_normal(n).astype(np.float32)
    v = x.astype(np.float64)
    expected = (np.sqrt(np.abs(v)) * np.pi + np.minimum(v, 0.5) + np.maximum(v, -0.25)
                + np.arange(n) % 7 + 1.0)
    return Launch({"x": x, "out": np.empty_like(x), "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1), {"out": expected})


def thrust_complex(rng: np.random.Generator, e: Entry) -> Launch:
    n = e.sizes["n"]
    a = (rng.uniform(0.1, 1.0, n) + 1j * rng.uniform(-1, 1, n)).astype(np.complex64)
    b = (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(np.complex64)
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    z = a64 * b64 + np.exp(a64) - np.conj(b64) / 2
    return Launch({"a": a, "b": b, "out": np.empty_like(a), "magnitude": np.empty(n, np.float32),
                   "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1),
                  {"out": z + np.sqrt(a64), "magnitude": np.abs(z) + np.angle(b64)})


def curand_pi(rng: np.random.Generator, e: Entry) -> Launch:
    n, samples = e.sizes["n"], e.sizes["samples"]
    # Each thread's count of points in the quarter circle: binomial, mean
    # samples * pi / 4 (the manifest's atol is 6 standard deviations).
    return Launch({"seed": np.int32(rng.integers(1 << 31)), "hits": np.zeros(n, np.uint32),
                   "samples": np.int32(samples), "n": np.int32(n)},
                  (blocks(n, e.block[0]), 1), {"hits": np.full(n, samples * np.pi / 4)})


SETUPS: dict[str, Callable[[np.random.Generator, Entry], Launch]] = {
    "vector_add": vector_add, "matmul_tiled": matmul_tiled, "mean_filter_3x3": mean_filter_3x3,
    "reduce_sum": reduce_sum, "scan_inclusive": scan_inclusive, "transpose": transpose,
    "histogram": histogram, "nbody_step": nbody_step, "mandelbrot": mandelbrot,
    "complex_math": complex_math, "template_axpy_float": template_axpy,
    "template_axpy_double": template_axpy, "standard_headers": standard_headers,
    "cub_block_reduce": reduce_sum,  # the same sums per block of 2 * blockDim.x
    "thrust_complex": thrust_complex,
    "curand_pi": curand_pi,
}

DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "uint8": np.uint8,
          "uint32": np.uint32, "complex64": np.complex64, "complex128": np.complex128, "float32x4": np.float32}


def run_entry(name: str, seed: int = SEED) -> tuple[dict[str, np.ndarray], Launch]:
    """Runs corpus entry `name` once on the current backend: its outputs
    (every out/inout argument) and the Launch it ran with."""
    entry = next(e for e in ENTRIES if e.name == name)
    launch = SETUPS[name](np.random.default_rng(seed), entry)
    module = compiler.SourceModule(entry.source, no_extern_c=entry.manifest["no_extern_c"])
    kernel = module.get_function(entry.manifest["kernel"])
    args: list[Any] = []
    outputs: dict[str, np.ndarray] = {}
    for direction, dtype, arg in entry.arguments():
        value = launch.values[arg]
        assert value.dtype == DTYPES[dtype], f"{name}: argument {arg} is {value.dtype}, not {dtype}"
        if direction == "in":
            args.append(drv.In(value))
        elif direction == "out":
            args.append(drv.Out(value))
            outputs[arg] = value
        elif direction == "inout":
            args.append(drv.InOut(value))
            outputs[arg] = value
        else:
            assert np.ndim(value) == 0, f"{name}: scalar argument {arg} is an array"
            args.append(value)
    # Dynamic shared memory: bytes per thread of the block.
    shared = entry.manifest.get("dynamic_shared_per_thread", 0) * math.prod(entry.block)
    kernel(*args, block=entry.block, grid=launch.grid, shared=shared)
    return outputs, launch


def assert_matches(entry: Entry, actual: dict[str, np.ndarray],
                   expected: dict[str, np.ndarray], what: str) -> None:
    tolerance = entry.manifest["tolerance"]
    assert set(actual) == set(expected), f"{entry.name}: outputs {set(actual)} vs {set(expected)}"
    for name, value in actual.items():
        if "match_fraction" in tolerance:
            # Iteration counts: a point on the set's edge may take one more or
            # one fewer iteration when the compiler contracts a*b+c into an FMA.
            same = float(np.mean(value == expected[name]))
            assert same >= tolerance["match_fraction"], f"{entry.name}.{name} vs {what}: {same}"
        else:
            np.testing.assert_allclose(value, expected[name], rtol=tolerance["rtol"],
                                       atol=tolerance["atol"], err_msg=f"{entry.name}.{name} "
                                       f"vs {what}")


def test_manifests_cover_every_source() -> None:
    assert {e.manifest["source"] for e in ENTRIES} == {p.name for p in CORPUS.glob("*.cu")}
    assert set(SETUPS) == {e.name for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_compiles_for_sm90_with_nvrtc(entry: Entry) -> None:
    cubin = compiler.compile(entry.source, arch="sm_90", no_extern_c=entry.manifest["no_extern_c"])
    assert cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_runs_against_numpy(entry: Entry) -> None:
    # Fresh random input each run (the seed is printed on failure).
    seed = int(np.random.default_rng().integers(1 << 31))
    outputs, launch = run_entry(entry.name, seed)
    assert_matches(entry, outputs, launch.expected, f"numpy (seed {seed})")


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_gpu_matches_cpu_backend(entry: Entry, tmp_path: Path) -> None:
    from child_process import cpu_backend_outputs

    seed = int(np.random.default_rng().integers(1 << 31))
    gpu, launch = run_entry(entry.name, seed)
    assert_matches(entry, gpu, launch.expected, f"numpy (seed {seed})")
    cpu = cpu_backend_outputs("test_kernel_corpus", entry.name, seed, tmp_path)
    assert_matches(entry, gpu, cpu, f"the CPU backend (seed {seed})")
