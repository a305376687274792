"""Integer arithmetic in translated kernels wraps around in two's complement,
the same on the CPU backend and a GPU, with no undefined behaviour in the
generated C++ (docs/guide/python-kernels.md, "Integer arithmetic wraps").

Every row of the tables below is one Python function, applied in a kernel
to random values and the limits of each integer type; the reference is the
same function run by the interpreter on NumPy arrays of the type Numba
computes in (NumPy's array arithmetic wraps around silently). Shifts by 64
or more, or by a negative amount, give PTX's clamped results (NumPy's);
the smallest integer // -1 gives 0 (Numba's). Each generated source also
compiles with NVRTC for sm_90, and on the CPU backend the tables run clean
under UBSan.
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit import _core, cuda
from sanitizer_scripts import sanitizer_runtime

RNG = np.random.default_rng(20251202)
BLOCK = 64  # the launches' block; the value counts are not multiples of it
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SIGNED = [np.dtype(d) for d in (np.int8, np.int16, np.int32, np.int64)]
UNSIGNED = [np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64)]
SANITIZED = os.environ.get("CUDAKIT_CPU_DEBUG", "0") not in ("", "0")

# Every kernel the tests run (their sources compile with NVRTC at the end).
KERNELS: list[Any] = []
# Under the sanitizer every device array stays alive: a pooled block reused
# at another size keeps the poison of its earlier, smaller use on the CPU
# backend, a false report that would stop the run (see set_usable_bytes).
_KEPT: list[Any] = []


def on_device(array: np.ndarray) -> Any:
    device = cuda.to_device(array)
    if SANITIZED:
        _KEPT.append(device)
    return device


def device_array(shape: Any, dtype: Any) -> Any:
    device = cuda.device_array(shape, dtype)
    if SANITIZED:
        _KEPT.append(device)
    return device


# ---- the types Numba computes in --------------------------------------------------------

def numba_arithmetic(a: np.dtype, b: np.dtype) -> np.dtype:
    """+ - * // % **: uint64 when both are unsigned, else int64 (Numba's
    integer typing; int64 with uint64 is float64 and not tested here)."""
    return np.dtype(np.uint64 if a.kind == b.kind == "u" else np.int64)


def left_64(a: np.dtype, b: np.dtype) -> np.dtype:
    """Shifts: 64 bits of the left operand's signedness, the amount converted."""
    return np.dtype(np.uint64 if a.kind == "u" else np.int64)


def own(a: np.dtype, b: np.dtype) -> np.dtype:
    """Unary - + ~ and abs: in the operand's own type (then widened), and
    NumPy's ufuncs on numbers: their loop's type."""
    return a


# ---- augmented assignments and longer expressions, as device functions ------------------

def add_in_place(x: Any, y: Any) -> Any:
    r = x
    r += y
    return r


def subtract_in_place(x: Any, y: Any) -> Any:
    r = x
    r -= y
    return r


def multiply_in_place(x: Any, y: Any) -> Any:
    r = x
    r *= y
    return r


def shift_left_in_place(x: Any, y: Any) -> Any:
    r = x
    r <<= y
    return r


def shift_right_in_place(x: Any, y: Any) -> Any:
    r = x
    r >>= y
    return r


def polynomial(x: Any, y: Any) -> Any:
    # (no int literals: Numba computes uint64 with int64 in float64)
    return x * x * x - x * y + y


def numba_floordiv(reference: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NumPy gives the smallest integer // -1 as itself; Numba gives 0 (its
    quotient does not fit; numba-cuda on an H200 gives 0)."""
    if reference.dtype.kind == "i":
        reference = reference.copy()
        reference[(x == np.iinfo(reference.dtype).min) & (y == -1)] = 0
    return reference


@dataclasses.dataclass(frozen=True)
class Op:
    name: str
    function: Callable[[Any, Any], Any]
    computed_in: Callable[[np.dtype, np.dtype], np.dtype]
    # The second operand's values (default: the first's kind of values).
    second: Callable[[np.dtype, int, np.random.Generator], np.ndarray] | None = None
    # Where Numba's result is not NumPy's: (reference, x, y) -> corrected.
    numba: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None


def exponents(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, min(70, np.iinfo(dtype).max) + 1, n).astype(dtype)


def shift_amounts(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """0..70 and, for signed amounts, negative ones down to the smallest."""
    info = np.iinfo(dtype)
    special = [0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 65, 70, info.max]
    if dtype.kind == "i":
        special += [-1, -2, -63, -64, -65, info.min]
    if dtype.itemsize == 8:
        special += [2**32, 2**32 + 1] + ([-(2**32)] if dtype.kind == "i" else [])
    values = np.concatenate([np.array(special, dtype=np.int64 if dtype.kind == "i"
                                      else np.uint64).astype(dtype),
                             rng.integers(max(info.min, -70), 71, n).astype(dtype)])
    return rng.permutation(values)[:n]


ARITHMETIC = [
    Op("x + y", lambda x, y: x + y, numba_arithmetic),
    Op("x - y", lambda x, y: x - y, numba_arithmetic),
    Op("x * y", lambda x, y: x * y, numba_arithmetic),
    Op("r += y", add_in_place, numba_arithmetic),
    Op("r -= y", subtract_in_place, numba_arithmetic),
    Op("r *= y", multiply_in_place, numba_arithmetic),
    Op("x * x * x - x * y + y", polynomial, numba_arithmetic),
    Op("x // y", lambda x, y: x // y, numba_arithmetic, numba=numba_floordiv),
    Op("x % y", lambda x, y: x % y, numba_arithmetic),
    Op("x ** y", lambda x, y: x ** y, numba_arithmetic, second=exponents),
    Op("-x", lambda x, y: -x, own),
    Op("+x", lambda x, y: +x, own),
    Op("~x", lambda x, y: ~x, own),
    Op("abs(x)", lambda x, y: abs(x), own),
    Op("np.abs(x)", lambda x, y: np.abs(x), own),
    Op("np.negative(x)", lambda x, y: np.negative(x), own),
]
SHIFTS = [
    Op("x << y", lambda x, y: x << y, left_64, second=shift_amounts),
    Op("x >> y", lambda x, y: x >> y, left_64, second=shift_amounts),
    Op("r <<= y", shift_left_in_place, left_64, second=shift_amounts),
    Op("r >>= y", shift_right_in_place, left_64, second=shift_amounts),
]
# np.add(x, y) on numbers is computed in NumPy's loop type (int8 for two int8).
UFUNCS = [
    Op("np.add(x, y)", lambda x, y: np.add(x, y), own),
    Op("np.subtract(x, y)", lambda x, y: np.subtract(x, y), own),
    Op("np.multiply(x, y)", lambda x, y: np.multiply(x, y), own),
]

# Operand types: each integer type with itself, and mixed pairs (int32 with
# uint32 computes in int64, uint8 with uint64 in uint64).
PAIRS = [(d, d) for d in SIGNED + UNSIGNED] + [
    (np.dtype(np.int8), np.dtype(np.uint8)), (np.dtype(np.int32), np.dtype(np.uint32)),
    (np.dtype(np.int16), np.dtype(np.int64)), (np.dtype(np.uint8), np.dtype(np.uint64))]
SHIFT_PAIRS = [(d, np.dtype(np.int64)) for d in SIGNED + UNSIGNED] + [
    (np.dtype(np.int64), np.dtype(np.uint64)), (np.dtype(np.uint64), np.dtype(np.int32)),
    (np.dtype(np.int32), np.dtype(np.uint8)), (np.dtype(np.int8), np.dtype(np.int8))]


# ---- inputs -----------------------------------------------------------------------------

def edge_values(dtype: np.dtype) -> list[int]:
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, info.min + 2, -2, -1, 0, 1, 2, 3, info.max - 2,
              info.max - 1, info.max]
    return sorted({v for v in values if info.min <= v <= info.max})


def random_values(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """Near the limits, and anywhere in the type."""
    info = np.iinfo(dtype)
    span = min(1000, (info.max - info.min) // 4)
    low = rng.integers(info.min, info.min + span, n // 3, dtype=dtype, endpoint=True)
    high = rng.integers(info.max - span, info.max, n // 3, dtype=dtype, endpoint=True)
    anywhere = rng.integers(info.min, info.max, n - 2 * (n // 3), dtype=dtype, endpoint=True)
    return np.concatenate([low, high, anywhere])


def operands(a_type: np.dtype, b_type: np.dtype, second: Callable[..., np.ndarray] | None,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of edge values, then random pairs (a count that is not a
    multiple of the block)."""
    a_edges, b_edges = edge_values(a_type), edge_values(b_type)
    a = np.array([x for x in a_edges for _ in b_edges], dtype=a_type)
    b = np.array([y for _ in a_edges for y in b_edges], dtype=b_type)
    a = np.concatenate([a, random_values(a_type, 157, rng)])
    b = np.concatenate([b, random_values(b_type, 157, rng)])
    if second is not None:
        b = second(b_type, a.size, rng)
    return a, b


# ---- kernels generated from the tables --------------------------------------------------

def generated_kernel(name: str, params: str, body: list[str], scope: dict[str, Any]) -> Any:
    """@cuda.jit of `def name(params): body`, its source registered with
    linecache so that the translator reads it as it reads a file's."""
    source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)
    filename = f"<{name} generated by {__name__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"cuda": cuda, "np": np, **scope}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our own table)
    kernel = cuda.jit(namespace[name])
    KERNELS.append(kernel)
    return kernel


def table_kernel(name: str, ops: list[Op]) -> Any:
    """One kernel applying every op of a table (as device functions) to
    a[i], b[i]: out[row, i]."""
    scope = {f"op{k}": cuda.jit(device=True)(op.function) for k, op in enumerate(ops)}
    body = ["i = cuda.grid(1)", "if i < a.shape[0]:"]
    body += [f"    out[{k}, i] = op{k}(a[i], b[i])" for k in range(len(ops))]
    return generated_kernel(name, "a, b, out", body, scope)


ARITHMETIC_KERNEL = table_kernel("integer_arithmetic", ARITHMETIC)
SHIFT_KERNEL = table_kernel("integer_shifts", SHIFTS)
UFUNC_KERNEL = table_kernel("integer_ufuncs", UFUNCS)


def reference(op: Op, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """op.function on arrays of the type Numba computes in, as int64 bits."""
    ty = op.computed_in(a.dtype, b.dtype)
    x, y = a.astype(ty), b.astype(ty) if op.computed_in is not own else b
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = np.asarray(op.function(x, y))
    if op.numba is not None:
        result = op.numba(result, x, y)
    return result.astype(np.int64)  # (uint64 bits wrap into int64, as the kernel stores them)


def run_table(kernel: Any, ops: list[Op], a_type: np.dtype, b_type: np.dtype,
              rng: np.random.Generator) -> list[tuple[list[int], np.ndarray, np.ndarray,
                                                      np.ndarray]]:
    """(rows, a, b, out) of one launch per distinct second operand (the shift
    amounts, the exponents); out[k] holds op k's results as int64 bits."""
    launches = []
    for generator in dict.fromkeys(op.second for op in ops):
        rows = [k for k, op in enumerate(ops) if op.second is generator]
        a, b = operands(a_type, b_type, generator, rng)
        out = device_array((len(ops), a.size), np.int64)
        kernel[(a.size + BLOCK - 1) // BLOCK, BLOCK](on_device(a), on_device(b), out)
        launches.append((rows, a, b, out.copy_to_host()))
    return launches


def check_table(kernel: Any, ops: list[Op], a_type: np.dtype, b_type: np.dtype) -> None:
    for rows, a, b, got in run_table(kernel, ops, a_type, b_type, RNG):
        for k in rows:
            expected = reference(ops[k], a, b)
            wrong = np.flatnonzero(got[k] != expected)
            assert wrong.size == 0, (
                f"{ops[k].name} with x: {a_type}, y: {b_type}: {wrong.size} of {a.size} wrong, "
                f"first x={a[wrong[0]]!r} y={b[wrong[0]]!r}: got {got[k, wrong[0]]}, "
                f"expected {expected[wrong[0]]} (int64 bits)")


def pair_id(pair: tuple[np.dtype, np.dtype]) -> str:
    return f"{pair[0]}-{pair[1]}"


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_arithmetic_wraps_around_as_numpy_arrays(pair: tuple[np.dtype, np.dtype]) -> None:
    check_table(ARITHMETIC_KERNEL, ARITHMETIC, *pair)


@pytest.mark.parametrize("pair", SHIFT_PAIRS, ids=pair_id)
def test_shifts_by_any_amount_give_the_clamped_results(pair: tuple[np.dtype, np.dtype]) -> None:
    check_table(SHIFT_KERNEL, SHIFTS, *pair)


@pytest.mark.parametrize("pair", [(d, d) for d in SIGNED + UNSIGNED], ids=pair_id)
def test_ufuncs_on_numbers_wrap_in_their_loop_type(pair: tuple[np.dtype, np.dtype]) -> None:
    check_table(UFUNC_KERNEL, UFUNCS, *pair)


TABLES = {"arithmetic": (ARITHMETIC_KERNEL, ARITHMETIC, PAIRS),
          "shifts": (SHIFT_KERNEL, SHIFTS, SHIFT_PAIRS),
          "ufuncs": (UFUNC_KERNEL, UFUNCS, [(d, d) for d in SIGNED + UNSIGNED])}


def table_results(seed: int) -> dict[str, np.ndarray]:
    """Every table's outputs for every operand pair, on inputs drawn with
    `seed` (the same inputs in every process)."""
    rng = np.random.default_rng(seed)
    results = {}
    for name, (kernel, ops, pairs) in TABLES.items():
        for pair in pairs:
            for n, (_, a, b, got) in enumerate(run_table(kernel, ops, *pair, rng)):
                results[f"{name}_{pair_id(pair)}_{n}"] = got
    return results


@pytest.mark.gpu
def test_the_gpu_and_the_cpu_backend_compute_the_same_bits(tmp_path: Path) -> None:
    """NVRTC's code on the GPU and the host compiler's on the CPU backend:
    every table gives the same results, bit for bit."""
    on_gpu = table_results(seed=7)
    saved = tmp_path / "cpu.npz"
    tests_root = Path(__file__).parent.parent
    code = ("import numpy as np\n"
            "from jit import test_hostile_jit_integers as tables\n"
            f"np.savez({str(saved)!r}, **tables.table_results(seed=7))\n")
    env = {**os.environ, "CUDAKIT_BACKEND": "cpu", "PYTHONPATH": os.pathsep.join(filter(None, [
        str(Path(__import__("cudakit").__file__).parent.parent), str(tests_root),
        os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=900, cwd=tests_root)
    assert result.returncode == 0, result.stdout + result.stderr
    on_cpu = np.load(saved)
    assert sorted(on_cpu.files) == sorted(on_gpu)
    for name, got in on_gpu.items():
        np.testing.assert_array_equal(got, on_cpu[name], err_msg=name)


# ---- constants the translator folds -----------------------------------------------------

# (x, y) pairs folded as `x OP y` when both are constants: the same results
# as the kernel computes at run time.
FOLDED = [
    (1, 70), (-8, 70), (1, 64), (-8, 64), (1, -1), (-8, -1), (1, INT64_MIN), (5, 63),
    (INT64_MAX, 1), (INT64_MIN, 1), (np.uint64(2**63), np.uint64(64)),
    (np.uint64(2**64 - 1), np.uint64(63)),
    (np.int8(-128), 70), (np.int8(-128), 7), (np.uint8(255), -1), (np.int32(-5), 2),
    (INT64_MAX, INT64_MAX), (INT64_MIN, -1), (INT64_MIN, 2), (np.int16(-32768), -1),
]
FOLDED_OPS = [("<<", lambda x, y: x << y, left_64), (">>", lambda x, y: x >> y, left_64),
              ("+", lambda x, y: x + y, numba_arithmetic),
              ("-", lambda x, y: x - y, numba_arithmetic),
              ("*", lambda x, y: x * y, numba_arithmetic),
              ("//", lambda x, y: x // y, numba_arithmetic),
              ("%", lambda x, y: x % y, numba_arithmetic)]


def folded_kernel() -> Any:
    scope = {}
    body = []
    for k, (x, y) in enumerate(FOLDED):
        scope[f"X{k}"], scope[f"Y{k}"] = x, y
        for j, (symbol, _, _) in enumerate(FOLDED_OPS):
            body.append(f"out[{k}, {j}] = X{k} {symbol} Y{k}")
    return generated_kernel("folded_constants", "out", body, scope)


def test_constants_fold_to_what_the_kernel_computes() -> None:
    kernel = folded_kernel()
    out = device_array((len(FOLDED), len(FOLDED_OPS)), np.int64)
    kernel[1, 1](out)
    got = out.copy_to_host()
    for k, (x, y) in enumerate(FOLDED):
        x_type, y_type = (np.dtype(type(v)) if isinstance(v, np.generic) else
                          np.dtype(np.int64) for v in (x, y))
        for j, (symbol, function, computed_in) in enumerate(FOLDED_OPS):
            op = Op(symbol, function, computed_in,
                    numba=numba_floordiv if symbol == "//" else None)
            expected = reference(op, np.array([x], x_type), np.array([y], y_type))[0]
            assert got[k, j] == expected, f"{x!r} {symbol} {y!r}: {got[k, j]} != {expected}"
    source = next(iter(kernel.inspect_cuda_source().values()))
    body = source[source.index('extern "C" __global__'):]
    # Folded to literals (only x // 0 and x % 0 are left to the run time: none here).
    assert "ck_shl(" not in body and "ck_add(" not in body and "ck_floordiv(" not in body, body


def test_smallest_integer_floor_divided_by_minus_one_is_zero_as_in_numba() -> None:
    # x86 traps on this division: the kernel must not reach it.
    kernel = generated_kernel("smallest_over_minus_one", "a, b, out", [
        "out[0] = a[0] // b[0]", "out[1] = a[0] % b[0]", "out[2] = a[1] // b[0]",
        "out[3] = a[1] % b[0]", "out[4] = a[0] // b[1]", "out[5] = a[0] % b[1]"], {})
    out = device_array(6, np.int64)
    kernel[1, 1](on_device(np.array([INT64_MIN, INT64_MAX])),
                 on_device(np.array([-1, 0])), out)
    np.testing.assert_array_equal(out.copy_to_host(), [0, 0, -INT64_MAX, 0, 0, 0])


# ---- loops that count past the limits ---------------------------------------------------

@cuda.jit
def doublings(start, out):
    i = start
    n = 0
    while i > 0:  # i doubles until it wraps around to a negative number
        i *= 2
        n += 1
    out[0] = n
    i = start
    n = 0
    while i > 0:
        i += i
        n += 1
    out[1] = n


KERNELS.append(doublings)


@pytest.mark.parametrize("start", [1, 3, 2**40 + 1, INT64_MAX])
def test_an_int64_counter_that_overflows_ends_the_loop(start: int) -> None:
    out = device_array(2, np.int64)
    doublings[1, 1](start, out)
    expected, i = 0, np.array([start], np.int64)
    with np.errstate(over="ignore"):
        while i[0] > 0:
            i *= 2
            expected += 1
    np.testing.assert_array_equal(out.copy_to_host(), [expected, expected])


BIG = INT64_MAX - 40  # a known start near the top
STOP_NEAR_TOP = INT64_MAX - 2

# range() loops in each form the translator emits: (name, loop header).
RANGE_FORMS = [
    ("run-time step", "range(start, stop, step)"),
    ("step 3", "range(start, stop, 3)"),
    ("step -3", "range(start, stop, -3)"),
    ("step 1", "range(start, stop)"),
    ("step -1", "range(start, stop, -1)"),
    ("known start >= 0, step 5", "range(BIG, stop, 5)"),
    ("grid-stride from a known start", "range(BIG + cuda.grid(1), stop, cuda.gridsize(1))"),
    ("known stop near the top", "range(start, STOP_NEAR_TOP, 7)"),
]
# (start, stop, step) near both limits, across them, a step of 0 at run time;
# each form runs those it counts through in at most 100 steps.
RANGE_CASES = [
    (INT64_MAX - 10, INT64_MAX, 3), (INT64_MAX - 10, INT64_MAX, 1), (INT64_MAX - 3, INT64_MAX, 7),
    (INT64_MIN + 10, INT64_MIN, -3), (INT64_MIN + 2, INT64_MIN, -1),
    (INT64_MIN, INT64_MAX, 2**62), (INT64_MAX, INT64_MIN, -(2**62)),
    (INT64_MAX, INT64_MIN, INT64_MIN), (INT64_MIN, INT64_MAX, INT64_MAX), (-5, 5, 1),
    (INT64_MAX - 10, INT64_MAX, 0), (INT64_MIN, INT64_MIN + 20, 7), (10, -10, -7),
    (INT64_MAX - 60, INT64_MAX, -1), (5, INT64_MAX, INT64_MAX - 3),
]
THREADS = 3


def range_kernel(header: str) -> Any:
    return generated_kernel(
        "count_range", "start, stop, step, out",
        ["n = 0", "total = 0", f"for i in {header}:", "    n += 1", "    total += i",
         "t = cuda.grid(1)", "out[t, 0] = n", "out[t, 1] = total"],
        {"BIG": BIG, "STOP_NEAR_TOP": STOP_NEAR_TOP})


def python_range(header: str, start: int, stop: int, step: int, thread: int) -> range | None:
    """The loop's range by the interpreter; None for a step of 0 (Python
    raises; the kernel runs no iteration, as Numba's kernels stop)."""
    fake_cuda = type("FakeCuda", (), {"grid": staticmethod(lambda ndim: thread),
                                      "gridsize": staticmethod(lambda ndim: THREADS)})
    names = {"start": start, "stop": stop, "step": step, "cuda": fake_cuda, "BIG": BIG,
             "STOP_NEAR_TOP": STOP_NEAR_TOP}
    try:
        return eval(header, names)  # noqa: S307 (a row of RANGE_FORMS)
    except ValueError:
        return None


def iterations(values: range | None) -> int:
    try:
        return len(values) if values is not None else 0
    except OverflowError:  # (more than fit a C ssize_t)
        return 2**64


@pytest.mark.parametrize("form", RANGE_FORMS, ids=[name for name, _ in RANGE_FORMS])
def test_range_counters_near_the_limits_stop_where_python_stops(form: tuple[str, str]) -> None:
    name, header = form
    kernel = range_kernel(header)
    cases = [case for case in RANGE_CASES
             if all(iterations(python_range(header, *case, t)) <= 100 for t in range(THREADS))]
    assert len(cases) >= 3, name
    for start, stop, step in cases:
        out = device_array((THREADS, 2), np.int64)
        kernel[1, THREADS](start, stop, step, out)
        got = out.copy_to_host()
        for t in range(THREADS):
            values = python_range(header, start, stop, step, t) or ()
            total = int(np.array(list(values) or [0], dtype=object).sum()) if values else 0
            expected = (len(values), total % 2**64 - (2**64 if total % 2**64 >= 2**63 else 0))
            assert tuple(got[t]) == expected, (name, (start, stop, step), t, got[t], expected)


# ---- the GPU compiler and the sanitizer --------------------------------------------------

def test_every_generated_source_compiles_for_sm_90_with_nvrtc() -> None:
    """The GPU path is at least compiled here: the sources of every kernel
    above (the wrapping helpers, shifts, counted loops) pass NVRTC."""
    try:
        _core.jit_compile_for_gpu('extern "C" __global__ void probe() {}', "compute_90")
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"NVRTC is not available: {error}")
    sources = {}
    for kernel in KERNELS:
        for spec in kernel.overloads.values():
            sources[spec.translation.source] = spec.translation.kernel_name
    if not sources:
        pytest.skip("no kernel of this module ran in this session")
    failures = []
    for source, name in sources.items():
        try:
            assert f".entry {name}" in _core.jit_compile_for_gpu(source, "compute_90")
        except Exception as error:  # noqa: BLE001
            failures.append(f"{name}: {error}")
    assert not failures, "\n\n".join(failures)


# What the sanitized run covers (-O0 builds with the sanitizers are slow):
# the limits of 8 and 64 bits, mixed kinds, the folds and every loop form.
SANITIZED_SELECTION = ("int8-int8 or int64-int64 or uint64-uint64 or int32-uint32 or "
                       "uint64-int64 or int64-uint64 or fold or smallest or overflows or range")


@pytest.mark.skipif(SANITIZED, reason="this is the sanitized run")
def test_tables_run_clean_under_ubsan_on_the_cpu_backend() -> None:
    """No undefined behaviour in the generated C++: the tables above run in
    a child process whose kernels are built with -fsanitize=address,undefined
    (CUDAKIT_CPU_DEBUG=1), where a signed overflow, an oversized shift or a
    trapping division would be reported. (AddressSanitizer reports go on:
    they are about memory, which other tests check.)"""
    if drv.backend() != "cpu":
        pytest.skip("UBSan instruments the CPU backend's kernels")
    runtime = sanitizer_runtime()
    if runtime is None:
        pytest.skip("the host compiler has no AddressSanitizer runtime (libasan.so)")
    env = {**os.environ, "CUDAKIT_BACKEND": "cpu", "CUDAKIT_CPU_DEBUG": "1",
           "LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
           "PYTHONPATH": os.pathsep.join(filter(None, [
               str(Path(__import__("cudakit").__file__).parent.parent),
               str(Path(__file__).parent.parent), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-s", "-p", "no:cacheprovider", __file__,
         "-k", SANITIZED_SELECTION],
        capture_output=True, text=True, env=env, timeout=900, cwd=Path(__file__).parent.parent)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "runtime error" not in output, output[-6000:]
