"""cub's block- and warp-level primitives, cuda::std::complex, thrust::complex
and cuComplex.h in kernels: each kernel runs on the current backend against
numpy (fresh random input, sizes not multiples of the block), compiles for
sm_90 with NVRTC and the toolkit's own headers, and on a GPU matches the CPU
backend (which gets cudakit's portable versions of these headers)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import cudakit.compiler as compiler
import cudakit.driver as drv

sys.path.insert(0, str(Path(__file__).parent))

REDUCE = """
#include <cub/block/block_reduce.cuh>
__global__ void kernel(const int* in, const float* fin, int* sums, int* maxs, int* mins,
                       float* fsums, int n) {
  typedef cub::BlockReduce<int, BLOCK> BR;
  typedef cub::BlockReduce<float, BLOCK> BRF;
  __shared__ typename BR::TempStorage tmp;
  __shared__ typename BRF::TempStorage ftmp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int valid = min(BLOCK, n - (int)(blockIdx.x * BLOCK));
  int v = i < n ? in[i] : 0;
  int s = BR(tmp).Sum(v, valid);
  __syncthreads();
  int mx = BR(tmp).Reduce(v, cuda::maximum<>{}, valid);
  __syncthreads();
  int mn = BR(tmp).Reduce(i < n ? v : 0x7fffffff, cuda::minimum<>{});
  float fs = BRF(ftmp).Sum(i < n ? fin[i] : 0.0f);
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s; maxs[blockIdx.x] = mx; mins[blockIdx.x] = mn; fsums[blockIdx.x] = fs;
  }
}
"""

SCAN = """
#include <cub/block/block_scan.cuh>
struct RunningPrefix {
  int total;
  __device__ int operator()(int block_aggregate) {
    int old = total;
    total += block_aggregate;
    return old;
  }
};
__global__ void kernel(const int* in, int* excl, int* incl, int* emax, int* imax, int* aggs,
                       int* tiled, int n) {
  typedef cub::BlockScan<int, BLOCK> BS;
  __shared__ typename BS::TempStorage tmp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int e, agg, inc, es, is;
  BS(tmp).ExclusiveSum(v, e, agg);
  __syncthreads();
  BS(tmp).InclusiveSum(v, inc);
  __syncthreads();
  BS(tmp).ExclusiveScan(v, es, 5, cuda::maximum<>{});
  __syncthreads();
  BS(tmp).InclusiveScan(v, is, cuda::maximum<>{});
  __syncthreads();
  if (i < n) { excl[i] = e; incl[i] = inc; emax[i] = es; imax[i] = is; }
  if (threadIdx.x == 0) aggs[blockIdx.x] = agg;
  if (blockIdx.x != 0) return;
  // The whole array in tiles of BLOCK * 3 by block 0, carried by a prefix callback.
  RunningPrefix prefix = {0};
  for (int tile = 0; tile < n; tile += BLOCK * 3) {
    int items[3], out[3];
    for (int k = 0; k < 3; ++k) {
      int at = tile + threadIdx.x * 3 + k;
      items[k] = at < n ? in[at] : 0;
    }
    __syncthreads();
    BS(tmp).ExclusiveSum(items, out, prefix);
    for (int k = 0; k < 3; ++k) {
      int at = tile + threadIdx.x * 3 + k;
      if (at < n) tiled[at] = out[k];
    }
  }
}
"""

WARP = """
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
__global__ void kernel(const int* in, int* wsums, int* wpart, int* incl, int* excl, int* waggs,
                       int* emax16, int n) {
  typedef cub::WarpReduce<int> WR;
  typedef cub::WarpScan<int> WS;
  typedef cub::WarpScan<int, 16> WS16;
  __shared__ typename WR::TempStorage rt[BLOCK / 32];
  __shared__ typename WS::TempStorage st[BLOCK / 32];
  __shared__ typename WS16::TempStorage st16[BLOCK / 16];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int v = i < n ? in[i] : 0;
  int s = WR(rt[warp]).Sum(v);
  int p = WR(rt[warp]).Reduce(v, cuda::maximum<>{}, 20);
  int inc, exc, agg, em;
  WS(st[warp]).InclusiveSum(v, inc);
  WS(st[warp]).ExclusiveSum(v, exc, agg);
  WS16(st16[threadIdx.x / 16]).ExclusiveScan(v, em, -1000, cuda::maximum<>{});
  int gw = i / 32;
  if (lane == 0) { wsums[gw] = s; wpart[gw] = p; waggs[gw] = agg; }
  if (i < n) { incl[i] = inc; excl[i] = exc; emax16[i] = em; }
}
"""

LOAD_STORE = """
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
__global__ void kernel(const int* in, int* dump, int* out, int n) {
  typedef cub::BlockLoad<int, BLOCK, 4, cub::LOAD_ALGO> BL;
  typedef cub::BlockStore<int, BLOCK, 4, cub::STORE_ALGO> BSt;
  __shared__ typename BL::TempStorage lt;
  __shared__ typename BSt::TempStorage st;
  int tile = blockIdx.x * BLOCK * 4;
  int valid = n - tile;
  int items[4];
  BL(lt).Load(in + tile, items, valid, -7);
  for (int k = 0; k < 4; ++k) dump[(blockIdx.x * BLOCK + threadIdx.x) * 4 + k] = items[k];
  BSt(st).Store(out + tile, items, valid);
}
"""

RADIX = """
#include <cub/block/block_radix_sort.cuh>
__global__ void kernel(const int* keys_in, const float* fkeys_in, int* keys_out, int* values_out,
                       float* fkeys_out, int n) {
  typedef cub::BlockRadixSort<int, BLOCK, 4, int> Sorter;
  typedef cub::BlockRadixSort<float, BLOCK, 4> FloatSorter;
  __shared__ typename Sorter::TempStorage tmp;
  __shared__ typename FloatSorter::TempStorage ftmp;
  int tile = blockIdx.x * BLOCK * 4;
  int keys[4], values[4];
  float fkeys[4];
  for (int k = 0; k < 4; ++k) {
    int at = tile + threadIdx.x * 4 + k;
    keys[k] = at < n ? keys_in[at] : 0x7fffffff;
    values[k] = at;
    fkeys[k] = at < n ? fkeys_in[at] : __int_as_float(0x7f800000);
  }
  Sorter(tmp).Sort(keys, values);
  FloatSorter(ftmp).SortBlockedToStriped(fkeys);
  for (int k = 0; k < 4; ++k) {
    int blocked = tile + threadIdx.x * 4 + k, striped = tile + k * BLOCK + threadIdx.x;
    if (blocked < n) { keys_out[blocked] = keys[k]; values_out[blocked] = values[k]; }
    if (striped < n) fkeys_out[striped] = fkeys[k];
  }
}
"""

STD_COMPLEX = """
#include <cuda/std/complex>
#include <cuComplex.h>
typedef cuda::std::complex<double> cx;
__global__ void kernel(const cx* a, const cx* b, cx* out, double* parts, cuFloatComplex* cu,
                       float* cuabs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cx x = a[i], y = b[i];
  cx z = x * y + x / y - 2.0 * x + conj(y);
  z += exp(x) + log(y) + sqrt(y) + pow(x, 2.0) + pow(x, y) + cuda::std::polar(abs(x), arg(y));
  out[i] = z;
  parts[i] = abs(x) + arg(y) + norm(x) + real(y) - imag(y);
  cuFloatComplex p = make_cuFloatComplex((float)x.real(), (float)x.imag());
  cuFloatComplex q = make_cuFloatComplex((float)y.real(), (float)y.imag());
  cu[i] = cuCaddf(cuCmulf(p, q), cuCsubf(cuCdivf(p, q), cuConjf(q)));
  cuabs[i] = cuCabsf(p) + cuCrealf(q) - cuCimagf(q) + (float)cuCabs(cuComplexFloatToDouble(q));
}
"""

THRUST_COMPLEX = """
#include <thrust/complex.h>
typedef thrust::complex<float> cx;
__global__ void kernel(const cx* a, const cx* b, cx* out, float* parts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cx x = a[i], y = b[i];
  cx z = x * y + x / y - 2.0f * x + thrust::conj(y);
  z += thrust::exp(x) + thrust::log(y) + thrust::sqrt(y) + thrust::pow(x, 2.0f);
  z += thrust::polar(thrust::abs(x), thrust::arg(y));
  out[i] = z;
  parts[i] = thrust::abs(x) + thrust::arg(y) + thrust::norm(x);
}
"""


def _ints(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(-1000, 1000, n, dtype=np.int32)


def _complex(rng: np.random.Generator, n: int, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    x = (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    y = (rng.choice([-1, 1], n) * rng.uniform(0.5, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    return x, y


@dataclass
class Launch:
    inputs: list[np.ndarray]
    outputs: dict[str, np.ndarray]
    scalars: list[np.generic]
    grid: int
    expected: dict[str, np.ndarray]


@dataclass
class Entry:
    name: str
    source: str
    block: int
    prepare: Callable[[np.random.Generator, int], Launch]
    tolerance: float = 0.0


def _blocks(n: int, per_block: int) -> int:
    return (n + per_block - 1) // per_block


def reduce_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 7 + 37
    a, f = _ints(rng, n), rng.uniform(-1, 1, n).astype(np.float32)
    g = _blocks(n, block)
    pad = np.zeros(g * block, np.int64)
    pad[:n] = a
    tiles = pad.reshape(g, block)
    masked = np.where(np.arange(g * block).reshape(g, block) < n, tiles, np.iinfo(np.int32).max)
    lo = np.where(np.arange(g * block).reshape(g, block) < n, tiles, np.iinfo(np.int32).min)
    fpad = np.zeros(g * block, np.float64)
    fpad[:n] = f
    return Launch([a, f], {"sums": np.zeros(g, np.int32), "maxs": np.zeros(g, np.int32),
                           "mins": np.zeros(g, np.int32), "fsums": np.zeros(g, np.float32)},
                  [np.int32(n)], g,
                  {"sums": tiles.sum(1), "maxs": lo.max(1), "mins": masked.min(1),
                   "fsums": fpad.reshape(g, block).sum(1)})


def scan_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 5 + 19
    a = _ints(rng, n)
    g = _blocks(n, block)
    tiles = [a[t:t + block].astype(np.int64) for t in range(0, n, block)]
    incl = np.concatenate([np.cumsum(t) for t in tiles])
    excl = incl - a
    imax = np.concatenate([np.maximum.accumulate(t) for t in tiles])
    emax = np.concatenate([np.maximum.accumulate(np.concatenate([[5], t[:-1]]).clip(5))
                           for t in tiles])
    aggs = np.array([t.sum() for t in tiles])
    tiled = np.cumsum(a.astype(np.int64)) - a
    outs = {k: np.zeros(n, np.int32) for k in ("excl", "incl", "emax", "imax")}
    outs["aggs"] = np.zeros(g, np.int32)
    outs["tiled"] = np.zeros(n, np.int32)
    return Launch([a], outs, [np.int32(n)], g,
                  {"excl": excl, "incl": incl, "emax": emax, "imax": imax, "aggs": aggs,
                   "tiled": tiled})


def warp_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 3 + 45
    a = _ints(rng, n)
    g = _blocks(n, block)
    warps = g * block // 32
    pad = np.zeros(g * block, np.int64)
    pad[:n] = a
    w = pad.reshape(warps, 32)
    incl = np.cumsum(w, 1).ravel()[:n]
    halves = pad.reshape(-1, 16)
    emax = np.maximum.accumulate(np.concatenate([np.full((halves.shape[0], 1), -1000),
                                                 halves[:, :-1]], 1), 1).ravel()[:n]
    outs = {"wsums": np.zeros(warps, np.int32), "wpart": np.zeros(warps, np.int32),
            "incl": np.zeros(n, np.int32), "excl": np.zeros(n, np.int32),
            "waggs": np.zeros(warps, np.int32), "emax16": np.zeros(n, np.int32)}
    return Launch([a], outs, [np.int32(n)], g,
                  {"wsums": w.sum(1), "wpart": w[:, :20].max(1), "incl": incl,
                   "excl": incl - a, "waggs": w.sum(1), "emax16": emax})


def load_store_case(striped: bool) -> Callable[[np.random.Generator, int], Launch]:
    def prepare(rng: np.random.Generator, block: int) -> Launch:
        n = block * 4 * 3 + 77
        a = _ints(rng, n)
        g = _blocks(n, block * 4)
        pad = np.full(g * block * 4, -7, np.int64)
        pad[:n] = a
        tiles = pad.reshape(g, block, 4) if not striped else \
            pad.reshape(g, 4, block).transpose(0, 2, 1)
        return Launch([a], {"dump": np.zeros(g * block * 4, np.int32),
                            "out": np.full(n, 12345, np.int32)}, [np.int32(n)], g,
                      {"dump": tiles.ravel(), "out": a})
    return prepare


def radix_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 4 * 2 + 101
    keys = rng.integers(-50, 50, n, dtype=np.int32)  # many equal keys: stability shows
    fkeys = rng.standard_normal(n).astype(np.float32)
    fkeys[:4] = [0.0, -0.0, np.inf, -np.inf]
    g = _blocks(n, block * 4)
    tile = block * 4
    order = np.concatenate([t + np.argsort(keys[t:t + tile], kind="stable")
                            for t in range(0, n, tile)])
    fsorted = np.concatenate([np.sort(fkeys[t:t + tile]) for t in range(0, n, tile)])
    return Launch([keys, fkeys], {"keys_out": np.zeros(n, np.int32),
                                  "values_out": np.zeros(n, np.int32),
                                  "fkeys_out": np.zeros(n, np.float32)},
                  [np.int32(n)], g,
                  {"keys_out": keys[order], "values_out": order, "fkeys_out": fsorted})


def std_complex_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 3 + 11
    x, y = _complex(rng, n, np.complex128)
    z = x * y + x / y - 2 * x + np.conj(y)
    z = z + np.exp(x) + np.log(y) + np.sqrt(y) + x ** 2 + x ** y + \
        np.abs(x) * np.exp(1j * np.angle(y))
    parts = np.abs(x) + np.angle(y) + np.abs(x) ** 2 + y.real - y.imag
    p, q = x.astype(np.complex64), y.astype(np.complex64)
    cu = (p * q + (p / q - np.conj(q))).astype(np.complex64)
    cuabs = (np.abs(p) + q.real - q.imag + np.abs(q)).astype(np.float32)
    return Launch([x, y], {"out": np.zeros(n, np.complex128), "parts": np.zeros(n),
                           "cu": np.zeros(n, np.complex64), "cuabs": np.zeros(n, np.float32)},
                  [np.int32(n)], _blocks(n, block),
                  {"out": z, "parts": parts, "cu": cu, "cuabs": cuabs})


def thrust_complex_case(rng: np.random.Generator, block: int) -> Launch:
    n = block * 3 + 11
    x, y = _complex(rng, n, np.complex64)
    xd, yd = x.astype(np.complex128), y.astype(np.complex128)
    z = xd * yd + xd / yd - 2 * xd + np.conj(yd) + np.exp(xd) + np.log(yd) + np.sqrt(yd) + xd ** 2
    z = z + np.abs(xd) * np.exp(1j * np.angle(yd))
    parts = np.abs(xd) + np.angle(yd) + np.abs(xd) ** 2
    return Launch([x, y], {"out": np.zeros(n, np.complex64), "parts": np.zeros(n, np.float32)},
                  [np.int32(n)], _blocks(n, block), {"out": z, "parts": parts})


def _load_store_source(load: str, store: str) -> str:
    return LOAD_STORE.replace("LOAD_ALGO", load).replace("STORE_ALGO", store)


ENTRIES = [
    entry
    for block in (128, 96)
    for entry in [
        Entry(f"block_reduce_{block}", REDUCE, block, reduce_case, tolerance=1e-4),
        Entry(f"block_scan_{block}", SCAN, block, scan_case),
        Entry(f"warp_reduce_scan_{block}", WARP, block, warp_case),
        Entry(f"block_load_store_direct_{block}",
              _load_store_source("BLOCK_LOAD_DIRECT", "BLOCK_STORE_DIRECT"), block,
              load_store_case(False)),
        Entry(f"block_load_store_striped_{block}",
              _load_store_source("BLOCK_LOAD_STRIPED", "BLOCK_STORE_STRIPED"), block,
              load_store_case(True)),
        Entry(f"block_load_store_warp_transpose_{block}",
              _load_store_source("BLOCK_LOAD_WARP_TRANSPOSE", "BLOCK_STORE_WARP_TRANSPOSE"),
              block, load_store_case(False)),
        Entry(f"block_load_store_transpose_{block}",
              _load_store_source("BLOCK_LOAD_TRANSPOSE", "BLOCK_STORE_TRANSPOSE"), block,
              load_store_case(False)),
        Entry(f"block_radix_sort_{block}", RADIX, block, radix_case),
        Entry(f"cuda_std_complex_cucomplex_{block}", STD_COMPLEX, block, std_complex_case,
              tolerance=1e-5),
        # NVRTC 13 cannot open <sstream>, which the toolkit's thrust/complex.h
        # includes, until NVRTC has standard-header stand-ins (issue #25 part 1).
        Entry(f"thrust_complex_{block}", THRUST_COMPLEX, block, thrust_complex_case,
              tolerance=2e-4),
    ]
]
BY_NAME = {e.name: e for e in ENTRIES}


def source_of(entry: Entry) -> str:
    return f"#define BLOCK {entry.block}\n" + entry.source


def run_entry(name: str, seed: int) -> tuple[dict[str, np.ndarray], Launch]:
    entry = BY_NAME[name]
    launch = entry.prepare(np.random.default_rng(seed), entry.block)
    kernel = compiler.SourceModule(source_of(entry)).get_function("kernel")
    outputs = {k: v.copy() for k, v in launch.outputs.items()}
    kernel(*[drv.In(a) for a in launch.inputs], *[drv.InOut(o) for o in outputs.values()],
           *launch.scalars, block=(entry.block, 1, 1), grid=(launch.grid, 1))
    return outputs, launch


def assert_matches(entry: Entry, got: dict[str, np.ndarray], want: dict[str, np.ndarray],
                   against: str) -> None:
    for key, expected in want.items():
        if entry.tolerance:
            np.testing.assert_allclose(got[key], expected, rtol=entry.tolerance,
                                       atol=entry.tolerance, err_msg=f"{key} against {against}")
        else:
            np.testing.assert_array_equal(got[key], expected, err_msg=f"{key} against {against}")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_against_numpy(entry: Entry) -> None:
    seed = int(np.random.default_rng().integers(1 << 31))
    got, launch = run_entry(entry.name, seed)
    assert_matches(entry, got, launch.expected, f"numpy (seed {seed})")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.block == 128], ids=lambda e: e.name)
def test_same_source_compiles_for_sm90_with_nvrtc(entry: Entry) -> None:
    assert compiler.compile(source_of(entry), arch="sm_90")[:4] == b"\x7fELF"


def test_cub_umbrella_header_and_cub2_functors() -> None:
    # <cub/cub.cuh> and CUB 2's cub::Sum / cub::Max / cub::Min, as older
    # kernels use them (NVRTC 13 refuses <cub/cub.cuh> for its host code).
    if drv.backend() != "cpu":
        pytest.skip("the CPU backend's <cub/cub.cuh>")
    source = """
    #include <cub/cub.cuh>
    __global__ void kernel(const int* in, int* out, int n) {
      typedef cub::BlockReduce<int, 64> BR;
      __shared__ typename BR::TempStorage tmp;
      int v = threadIdx.x < n ? in[threadIdx.x] : 0;
      int s = BR(tmp).Reduce(v, cub::Sum());
      __syncthreads();
      int mx = BR(tmp).Reduce(v, cub::Max(), n);
      __syncthreads();
      int mn = BR(tmp).Reduce(v, cub::Min(), n);
      if (threadIdx.x == 0) { out[0] = s; out[1] = mx; out[2] = mn; }
    }"""
    a = _ints(np.random.default_rng(), 50)
    out = np.zeros(3, np.int32)
    compiler.SourceModule(source).get_function("kernel")(drv.In(a), drv.Out(out), np.int32(50),
                                                          block=(64, 1, 1))
    assert out.tolist() == [a.sum(), a.max(), a.min()]


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_gpu_matches_cpu_backend(entry: Entry, tmp_path: Path) -> None:
    from child_process import cpu_backend_outputs

    seed = int(np.random.default_rng().integers(1 << 31))
    gpu, launch = run_entry(entry.name, seed)
    assert_matches(entry, gpu, launch.expected, f"numpy (seed {seed})")
    cpu = cpu_backend_outputs("test_cub_cpu", entry.name, seed, tmp_path)
    assert_matches(entry, gpu, cpu, f"the CPU backend (seed {seed})")


@dataclass
class Refused:
    name: str
    source: str
    message: str


REFUSED = [
    Refused("cub::DeviceReduce", "#include <cub/cub.cuh>\n__global__ void k(const int* in, int* o,"
            " int n) { void* t = 0; size_t b = 0; cub::DeviceReduce::Sum(t, b, in, o, n); }",
            r"cub::DeviceReduce is not supported on the CPU backend: cub's device-wide "
            r"algorithms launch kernels from the host"),
    Refused("cub::DeviceRadixSort", "#include <cub/cub.cuh>\n__global__ void k(int* a) "
            "{ cub::DeviceRadixSort::SortKeys(0, 0, a, a, 1); }",
            r"cub::DeviceRadixSort is not supported on the CPU backend"),
    Refused("cub/device header", "#include <cub/device/device_reduce.cuh>\n__global__ void k() {}",
            r"<cub/device/device_reduce.cuh> is not supported on the CPU backend: cub's "
            r"device-wide algorithms"),
    Refused("other cub header", "#include <cub/block/block_histogram.cuh>\n__global__ void k() {}",
            r"<cub/block/block_histogram.cuh> is not supported on the CPU backend: of cub the CPU "
            r"backend provides"),
    Refused("thrust algorithm", "#include <thrust/sort.h>\n__global__ void k() {}",
            r"<thrust/sort.h> is not supported on the CPU backend: thrust's algorithms"),
]


@pytest.mark.skipif(drv.backend() != "cpu", reason="the CPU backend's refusal")
@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.name)
def test_unsupported_refused_on_cpu(case: Refused) -> None:
    with pytest.raises(drv.CompileError, match=case.message) as raised:
        compiler.SourceModule(case.source)
    assert str(raised.value).count("error:") <= 2, "one clear error, not a wall of them"
