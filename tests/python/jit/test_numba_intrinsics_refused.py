"""numba.cuda intrinsics and builtins given arguments of types numba.cuda
does not take: a TypeError (cudakit's TypingError) naming the intrinsic and
the types it takes, raised when the kernel is compiled. One line per case."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

from cudakit import cuda

from hostile_cases import Case, case_id, check_refused


def kernel_with(body: str, name: str):  # type: ignore[no-untyped-def]
    """A kernel `k(x, f, u, out)` (x int64[:], f float64[:], u uint32[:],
    out float64[:]) whose body is `body`."""
    source = "def k(x, f, u, out):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    filename = f"<refused {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"cuda": cuda, "np": np}
    exec(compile(source, filename, "exec"), namespace)
    return cuda.jit(namespace["k"])


def compile_kernel(body: str, name: str) -> None:
    kernel = kernel_with(body, name)
    kernel[1, 1](np.arange(4), np.ones(4), np.arange(4, dtype=np.uint32), np.zeros(4))


def refused(name: str, body: str, message: str) -> Case:
    return Case(name, lambda: compile_kernel(body, name), TypeError, message)


CASES = [
    refused("popc of a float", "out[0] = cuda.popc(f[0])",
            r"cuda\.popc\(x\) takes int8, int16, int32, int64, uint8.*got float64"),
    refused("clz of a bool", "out[0] = cuda.clz(f[0] > 0)", r"cuda\.clz\(x\) takes .*boolean"),
    refused("ffs of a float", "out[0] = cuda.ffs(f[0])", r"cuda\.ffs\(x\) takes .*float64"),
    refused("brev of a signed int", "out[0] = cuda.brev(x[0])",
            r"cuda\.brev\(x\) takes uint32 or uint64, got int64"),
    refused("popc with two arguments", "out[0] = cuda.popc(x[0], x[1])",
            r"cuda\.popc\(x\) takes one argument"),
    refused("fma of integers", "out[0] = cuda.fma(x[0], x[1], x[2])",
            r"cuda\.fma\(a, b, c\) takes 3 arguments of one float type \(float32 or float64\)"),
    refused("fma of mixed floats", "out[0] = cuda.fma(f[0], np.float32(1), f[2])",
            r"cuda\.fma.*got float64, float32, float64"),
    refused("cbrt of an int", "out[0] = cuda.cbrt(x[0])",
            r"cuda\.cbrt\(a\) takes 1 argument of one float type.*int64"),
    refused("selp of mixed types", "out[0] = cuda.selp(x[0] > 0, x[0], f[0])",
            r"cuda\.selp\(test, a, b\) takes a and b of one type .*got int64 and float64"),
    refused("selp of int8", "out[0] = cuda.selp(True, np.int8(1), np.int8(2))",
            r"cuda\.selp.*int8"),
    refused("nanosleep of a float", "cuda.nanosleep(f[0])",
            r"cuda\.nanosleep\(ns\) takes one integer.*float64"),
    refused("match_any_sync of int16", "out[0] = cuda.match_any_sync(0xffffffff, np.int16(1))",
            r"cuda\.match_any_sync\(mask, value\) takes an int32, int64, float32 or float64 "
            r"value, got int16"),
    refused("match_all_sync with a float mask", "m, p = cuda.match_all_sync(f[0], x[0])",
            r"cuda\.match_all_sync: the mask must be an integer, got float64"),
    refused("eq_sync with one argument", "out[0] = cuda.eq_sync(0xffffffff)",
            r"cuda\.eq_sync\(mask, predicate\) takes two arguments"),
    refused("all_sync with a float mask", "out[0] = cuda.all_sync(f[0], True)",
            r"cuda\.all_sync: Mask type must be an integer, got float64"),
    refused("any_sync with a float predicate", "out[0] = cuda.any_sync(0xffffffff, f[0])",
            r"cuda\.any_sync: Predicate must be an integer or boolean, got float64"),
    refused("eq_sync with a float predicate", "out[0] = cuda.eq_sync(0xffffffff, f[0])",
            r"cuda\.eq_sync: the predicate must be an integer or boolean, got float64"),
    refused("shfl_sync of a bool", "out[0] = cuda.shfl_sync(0xffffffff, f[0] > 0, 0)",
            r"cuda\.shfl_sync shuffles integers and floats, got boolean"),
    refused("atomic.cas on floats", "out[0] = cuda.atomic.cas(f, 0, f[0], f[1])",
            r"cuda\.atomic\.cas works on int32, uint32, int64 and uint64 arrays, not float64"),
    refused("atomic.and_ on floats", "out[0] = cuda.atomic.and_(f, 0, 1.0)",
            r"cuda\.atomic\.and needs an integer array, got float64"),
    refused("atomic.add on a scalar", "cuda.atomic.add(x[0], 0, 1)",
            r"cuda\.atomic\.add: the first argument must be an array, got int64"),
    refused("atomic.inc on int8", "a = cuda.local.array(2, np.int8)\ncuda.atomic.inc(a, 0, 1)",
            r"cuda\.atomic\.inc needs 32- or 64-bit integer or float elements, the array is "
            r"int8"),
    refused("bit_count of a float", "out[0] = f[0].bit_count()",
            r"bit_count\(\) is a method of integers .* float64"),
    refused("round with float ndigits", "out[0] = round(f[0], f[1])",
            r"round\(x, ndigits\): ndigits must be an integer, got float64"),
    refused("heterogeneous tuple at run time", "t = (x[0], f[0])\nout[0] = t[x[1]]",
            r"tuple is indexed by a run-time integer only when all its items are numbers of "
            r"one type"),
    refused("tuple index of floats", "t = (x[0], x[1])\nout[0] = t[f[0]]",
            r"a tuple index must be an integer, got float64"),
    refused("enumerate of a number", "for i, v in enumerate(x[0]):\n    out[i] = v",
            r"enumerate\(\) and zip\(\) in a kernel take 1-d arrays, range\(\) objects and "
            r"tuples of numbers of one type, got int64"),
    Case("zip of a 2-d local array", lambda: compile_kernel(
        "a = cuda.local.array((2, 2), np.int64)\nfor p, q in zip(a, x):\n    out[0] = q",
        "zip2d"), cuda.UnsupportedError, r"iterating over the rows of a local array"),
    refused("enumerate with a float start", "for i, v in enumerate(x, 1.5):\n    out[i] = v",
            r"enumerate\(\)'s start must be an integer, got float64"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)
