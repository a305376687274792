"""<curand_kernel.h> in kernels: cudakit's CPU backend provides the device API
of cuRAND for the XORWOW, Philox4_32_10 and MRG32k3a states
(src/core/builtin_headers/curand_kernel_cpu.h). The raw bits, the uniform
distributions, the float and double normals and log-normals, skipahead and
Poisson draws are the GPU's, bit for bit (pinned values below were read from
an H200; the float normals and Poisson draws take the GPU's hardware
approximations from src/backend/cpu/prelude/cudakit_cpu_approx_math.h). The
Poisson means reach the kernels at run time: a constant lambda lets the GPU's
compiler evaluate some approximations exactly instead. On a GPU (marker `gpu`)
the same kernels run on both backends and their outputs are compared."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import cudakit.compiler as compiler
import cudakit.driver as drv

STATES = {"xorwow": "curandStateXORWOW_t", "philox": "curandStatePhilox4_32_10_t",
          "mrg32k3a": "curandStateMRG32k3a_t"}
# MRG32k3a's curand_init steps by subsequences of 2^76 (skipahead_subsequence);
# the other two by skipahead_sequence.
SUBSEQUENCE_SKIP = {"xorwow": "skipahead_sequence", "philox": "skipahead_sequence",
                    "mrg32k3a": "skipahead_subsequence"}


def kernels_source() -> str:
    """One kernel of each kind per generator (extern "C", no overloads)."""
    body = [r"""
#include <curand_kernel.h>

// The sequence the pinned values were read with: curand_init(seed,
// subsequence, offset), then n of each in this order.
template <typename S>
__device__ void fill(S* st, const unsigned long long* c, const double* lambda, unsigned* u32,
                     float* f, double* d, int n) {
  curand_init(c[0], c[1], c[2], st);
  for (int i = 0; i < n; ++i) u32[i] = curand(st);
  for (int i = 0; i < n; ++i) f[i] = curand_uniform(st);
  for (int i = 0; i < n; ++i) d[i] = curand_uniform_double(st);
  skipahead(12345678901ull, st);
  for (int i = 0; i < n; ++i) u32[4 * n + i] = curand(st);
  skipahead_sequence(3, st);
  for (int i = 0; i < n; ++i) u32[5 * n + i] = curand(st);
  for (int i = 0; i < n; ++i) f[n + i] = curand_normal(st);
  for (int i = 0; i < n; ++i) d[n + i] = curand_normal_double(st);
  for (int i = 0; i < n; ++i) u32[n + i] = curand_poisson(st, lambda[0]);
  for (int i = 0; i < n; ++i) u32[2 * n + i] = curand_poisson(st, lambda[1]);
  for (int i = 0; i < n; ++i) u32[3 * n + i] = curand_poisson(st, lambda[2]);
  for (int i = 0; i < n; ++i) f[2 * n + i] = curand_log_normal(st, 0.5f, 0.25f);
}

// Thread t draws `per` of each distribution from subsequence t.
template <typename S>
__device__ void draw(S* st, unsigned long long seed, const double* lambda, int t, int per,
                     unsigned* bits,
                     float* uniform, double* uniform_double, float* normal, float* normal2,
                     double* normal_double, double* normal2_double, float* log_normal,
                     unsigned* poisson) {
  curand_init(seed, t, 0, st);
  for (int i = 0; i < per; ++i) {
    const int k = t * per + i;
    bits[k] = curand(st);
    uniform[k] = curand_uniform(st);
    uniform_double[k] = curand_uniform_double(st);
    normal[k] = curand_normal(st);
    const float2 pair = curand_normal2(st);
    normal2[2 * k] = pair.x;
    normal2[2 * k + 1] = pair.y;
    normal_double[k] = curand_normal_double(st);
    const double2 pair_double = curand_normal2_double(st);
    normal2_double[2 * k] = pair_double.x;
    normal2_double[2 * k + 1] = pair_double.y;
    log_normal[k] = curand_log_normal(st, 0.3f, 0.5f);
    poisson[3 * k + 2] = curand_poisson(st, lambda[2]);  // 4 words each, from normals
  }
  // Knuth's method (lambda < 64) and the rejection method (64...4000) take
  // a varying number of words per draw: each from its own place in the
  // subsequence, so a draw that went another way does not move the others.
  curand_init(seed, t, 1ull << 50, st);
  for (int i = 0; i < per; ++i) poisson[3 * (t * per + i)] = curand_poisson(st, lambda[0]);
  curand_init(seed, t, 1ull << 51, st);
  for (int i = 0; i < per; ++i) poisson[3 * (t * per + i) + 1] = curand_poisson(st, lambda[1]);
}
"""]
    for name, state in STATES.items():
        body.append(f"""
extern "C" __global__ void fill_{name}(const unsigned long long* cases, int ncases,
                                       const double* lambda, unsigned* u32, float* f, double* d,
                                       int n) {{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncases) return;
  {state} st;
  fill(&st, cases + 3 * c, lambda, u32 + 6 * n * c, f + 3 * n * c, d + 2 * n * c, n);
}}

extern "C" __global__ void draw_{name}(unsigned long long seed, const double* lambda,
    int threads, int per, unsigned* bits, float* uniform, double* uniform_double, float* normal, float* normal2,
    double* normal_double, double* normal2_double, float* log_normal, unsigned* poisson) {{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  {state} st;
  draw(&st, seed, lambda, t, per, bits, uniform, uniform_double, normal, normal2,
       normal_double, normal2_double, log_normal, poisson);
}}

// out[0..m): curand_init(seed, sub, off); out[m..2m): the same position
// reached by curand_init(seed, 0, 0) and the skips; out[2m..3m): by
// curand_init(seed, sub, 0), skipahead(a), skipahead(off - a); out[3m..4m):
// by curand_init(seed, sub, 0) and `steps` draws, then skipahead(off - steps).
extern "C" __global__ void skips_{name}(unsigned long long seed, unsigned long long sub,
    unsigned long long off, unsigned long long a, unsigned long long steps, int m,
    unsigned* out) {{
  {state} s;
  curand_init(seed, sub, off, &s);
  for (int i = 0; i < m; ++i) out[i] = curand(&s);
  curand_init(seed, 0, 0, &s);
  {SUBSEQUENCE_SKIP[name]}(sub, &s);
  skipahead(off, &s);
  for (int i = 0; i < m; ++i) out[m + i] = curand(&s);
  curand_init(seed, sub, 0, &s);
  skipahead(a, &s);
  skipahead(off - a, &s);
  for (int i = 0; i < m; ++i) out[2 * m + i] = curand(&s);
  curand_init(seed, sub, 0, &s);
  for (unsigned long long i = 0; i < steps; ++i) curand(&s);
  skipahead(off - steps, &s);
  for (int i = 0; i < m; ++i) out[3 * m + i] = curand(&s);
}}
""")
    body.append(r"""
// Philox's four-at-a-time functions against the one-at-a-time ones.
extern "C" __global__ void philox4(unsigned long long seed, unsigned long long off, int m,
                                   unsigned* bits4, unsigned* bits1, float* uniform4,
                                   float* normal4, float* normal2) {
  curandStatePhilox4_32_10_t s;
  curand_init(seed, 0, off, &s);
  for (int i = 0; i < m; ++i) {
    const uint4 v = curand4(&s);
    bits4[4 * i] = v.x; bits4[4 * i + 1] = v.y; bits4[4 * i + 2] = v.z; bits4[4 * i + 3] = v.w;
  }
  curand_init(seed, 0, off, &s);
  for (int i = 0; i < 4 * m; ++i) bits1[i] = curand(&s);
  curand_init(seed, 0, off, &s);
  for (int i = 0; i < m; ++i) {
    const float4 v = curand_uniform4(&s);
    uniform4[4 * i] = v.x; uniform4[4 * i + 1] = v.y;
    uniform4[4 * i + 2] = v.z; uniform4[4 * i + 3] = v.w;
  }
  curand_init(seed, 0, off, &s);
  for (int i = 0; i < m; ++i) {
    const float4 v = curand_normal4(&s);
    normal4[4 * i] = v.x; normal4[4 * i + 1] = v.y;
    normal4[4 * i + 2] = v.z; normal4[4 * i + 3] = v.w;
  }
  curand_init(seed, 0, off, &s);
  for (int i = 0; i < 2 * m; ++i) {
    const float2 v = curand_normal2(&s);
    normal2[2 * i] = v.x; normal2[2 * i + 1] = v.y;
  }
}
""")
    return "".join(body)


_MODULE: list[compiler.SourceModule] = []


def module() -> compiler.SourceModule:
    if not _MODULE:
        _MODULE.append(compiler.SourceModule(kernels_source(), no_extern_c=True))
    return _MODULE[0]


# ---- pinned values, read from an H200 (CUDA 13.0) ------------------------------
FILL_N = 2000
FILL_LAMBDAS = (5.5, 300.0, 10000.0)  # passed at run time
CASES = [(1234, 5, 7), (0, 0, 0), (0xDEADBEEFCAFEF00D, 123456789012, 98765432109876),
         (42, 1 << 40, 3)]
# sha256 (first 16 hex digits) of a case's integer outputs (curand, the three
# Poisson sections, the two sections after skipahead / skipahead_sequence),
# then its curand_uniform and curand_uniform_double outputs, as the H200 gave them
# (lambda passed at run time; with the means as constants in the kernel, ptxas
# evaluates lg2.approx(300) exactly and MRG32k3a's case 1 gives 1866be4a3bcc1f59).
PINNED_DIGESTS = {
    "xorwow": ["d96d3a7d78172706", "4e777ef71cb74fb6", "141731147b468b66", "77ece7f1e71f7975"],
    "philox": ["3068931514892ce0", "9c65a5fead71db7b", "67831b581f16a2ac", "06ebf95d7fbdc733"],
    "mrg32k3a": ["7e2d63bea49bf799", "8b942567f358a9cb", "c43e94223784b8e3", "e2b54016cd003c8e"],
}
# Case 0 (seed 1234, subsequence 5, offset 7), as the H200 gave them: the first
# two curand(), the first curand_uniform / curand_uniform_double, the first
# curand() after skipahead and after skipahead_sequence, the first Poisson
# draws (lambda 5.5, 300, 10000).
PINNED_FIRST = {
    "xorwow": ([3351265907, 3629609298], 0.40102317929267883, 0.18644338348204842,
               171821819, 1420177523, [8, 287, 9911]),
    "philox": ([1925342002, 648658203], 0.15007290244102478, 0.5447954353876412,
               3979431282, 2203226071, [7, 307, 10074]),
    "mrg32k3a": ([2068833513, 469510173], 0.17292191088199615, 0.11488207988682081,
                 4287550289, 1977093589, [4, 285, 9998]),
}
# Case 0's first three curand_normal, curand_normal_double and two
# curand_log_normal(0.5, 0.25) on the H200.
PINNED_NORMALS = {
    "xorwow": ([-0.0745021253824234, -1.1854697465896606, 0.6185250878334045],
               [-0.7602662080866894, 1.031240361378358, 1.182965182808718],
               [1.97527277469635, 2.3544631004333496]),
    "philox": ([-0.1459948569536209, -1.1142128705978394, 0.36141133308410645],
               [1.2074519299830493, -0.3155675343808027, -0.18165233259233537],
               [0.9390850067138672, 1.0656296014785767]),
    "mrg32k3a": ([-0.10398612171411514, 1.1488553285598755, -0.6157007217407227],
                 [-1.234063815766027, 1.6958557216944523, 0.25241428244614306],
                 [1.7092313766479492, 1.2317143678665161]),
}


def run_fill(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, count = FILL_N, len(CASES)
    cases = np.array(CASES, dtype=np.uint64).ravel()
    u32 = np.zeros((count, 6, n), np.uint32)
    f = np.zeros((count, 3, n), np.float32)
    d = np.zeros((count, 2, n), np.float64)
    module().get_function(f"fill_{name}")(drv.In(cases), np.int32(count),
                                          drv.In(np.array(FILL_LAMBDAS)), drv.Out(u32),
                                          drv.Out(f), drv.Out(d), np.int32(n),
                                          block=(32, 1, 1), grid=(1, 1))
    return u32, f, d


@pytest.mark.parametrize("name", STATES)
def test_pinned_values_are_the_gpus(name: str) -> None:
    u32, f, d = run_fill(name)
    bits, uniform, uniform_double, after_skip, after_sequence, poisson = PINNED_FIRST[name]
    assert list(u32[0, 0, :2]) == bits
    assert f[0, 0, 0] == np.float32(uniform)
    assert d[0, 0, 0] == uniform_double
    assert u32[0, 4, 0] == after_skip, "skipahead"
    assert u32[0, 5, 0] == after_sequence, "skipahead_sequence"
    assert list(u32[0, 1:4, 0]) == poisson, "curand_poisson (5.5, 300, 10000)"
    digests = [hashlib.sha256(u32[c].tobytes() + f[c, 0].tobytes() + d[c, 0].tobytes())
               .hexdigest()[:16] for c in range(len(CASES))]
    assert digests == PINNED_DIGESTS[name], f"cases {CASES}"
    normal, normal_double, log_normal = PINNED_NORMALS[name]
    assert list(d[0, 1, :3]) == normal_double, "curand_normal_double"
    assert list(f[0, 1, :3]) == [np.float32(v) for v in normal], "curand_normal"
    assert list(f[0, 2, :2]) == [np.float32(v) for v in log_normal], "curand_log_normal"


# ---- statistics on fresh seeds ---------------------------------------------------
THREADS, PER, BLOCK = 1000, 48, 128  # 1000 threads: not a multiple of the block
# Poisson means, passed at run time (see docs/guide/cpu-backend.md: where
# lambda is a constant the GPU's compiler may evaluate its approximations).
DRAW_LAMBDAS = (4.5, 150.0, 5000.0)


def run_draw(name: str, seed: int) -> dict[str, np.ndarray]:
    k = THREADS * PER
    out = {"bits": np.zeros(k, np.uint32), "uniform": np.zeros(k, np.float32),
           "uniform_double": np.zeros(k, np.float64), "normal": np.zeros(k, np.float32),
           "normal2": np.zeros(2 * k, np.float32), "normal_double": np.zeros(k, np.float64),
           "normal2_double": np.zeros(2 * k, np.float64), "log_normal": np.zeros(k, np.float32),
           "poisson": np.zeros((k, 3), np.uint32)}
    module().get_function(f"draw_{name}")(
        np.uint64(seed), drv.In(np.array(DRAW_LAMBDAS)), np.int32(THREADS), np.int32(PER),
        *(drv.Out(a) for a in out.values()),
        block=(BLOCK, 1, 1), grid=((THREADS + BLOCK - 1) // BLOCK, 1))
    return out


def within(values: np.ndarray, mean: float, variance: float, what: str) -> None:
    """Sample mean and variance of `values` within 5 standard errors."""
    x = np.asarray(values, np.float64)
    n = x.size
    assert abs(x.mean() - mean) < 5 * np.sqrt(variance / n), f"{what}: mean {x.mean()}"
    central = (x - mean) ** 2
    assert abs(central.mean() - variance) < 5 * central.std() / np.sqrt(n), \
        f"{what}: variance {central.mean()} (expected {variance})"


@pytest.mark.parametrize("name", STATES)
def test_distributions_on_a_fresh_seed(name: str) -> None:
    seed = int(np.random.default_rng().integers(1 << 63))
    out = run_draw(name, seed)
    what = f"{name}, seed {seed}"
    bits = out["bits"].astype(np.float64)
    within(bits / 2.0**32, 0.5, 1 / 12, f"{what}: curand / 2^32")
    for key in ("uniform", "uniform_double"):
        assert out[key].min() > 0 and out[key].max() <= 1, f"{what}: {key} outside (0, 1]"
        within(out[key], 0.5, 1 / 12, f"{what}: {key}")
    for key in ("normal", "normal2", "normal_double", "normal2_double"):
        assert np.isfinite(out[key]).all(), f"{what}: {key} not finite"
        within(out[key], 0.0, 1.0, f"{what}: {key}")
    mu, sigma = 0.3, 0.5
    within(out["log_normal"], np.exp(mu + sigma**2 / 2),
           (np.exp(sigma**2) - 1) * np.exp(2 * mu + sigma**2), f"{what}: log_normal")
    for column, lam in enumerate((4.5, 150.0, 5000.0)):
        within(out["poisson"][:, column], lam, lam, f"{what}: poisson({lam})")
    # Threads draw from different subsequences: no two alike.
    per_thread = out["bits"].reshape(THREADS, PER)
    assert len({row.tobytes() for row in per_thread}) == THREADS, what


# ---- curand_init's subsequence and offset are skipahead --------------------------
@pytest.mark.parametrize("name", STATES)
def test_init_subsequence_and_offset_equal_skipahead(name: str) -> None:
    rng = np.random.default_rng()
    m = 37
    for _ in range(3):
        seed = int(rng.integers(1 << 63))
        sub = int(rng.integers(1 << 40))
        off = int(rng.integers(1 << 62))
        a = int(rng.integers(off))
        steps = int(rng.integers(1, 3000))
        off = max(off, steps)
        out = np.zeros(4 * m, np.uint32)
        module().get_function(f"skips_{name}")(
            np.uint64(seed), np.uint64(sub), np.uint64(off), np.uint64(a), np.uint64(steps),
            np.int32(m), drv.Out(out), block=(1, 1, 1), grid=(1, 1))
        given = f"{name}: seed {seed}, subsequence {sub}, offset {off}"
        first = out[:m]
        assert (out[m:2 * m] == first).all(), f"{given}: init vs skipahead from 0"
        assert (out[2 * m:3 * m] == first).all(), f"{given}: skipahead({a}) + skipahead(rest)"
        assert (out[3 * m:] == first).all(), f"{given}: {steps} draws + skipahead(rest)"


def test_philox_four_at_a_time_matches_one_at_a_time() -> None:
    rng = np.random.default_rng()
    seed, off, m = int(rng.integers(1 << 63)), int(rng.integers(1 << 40)), 29
    bits4, bits1 = np.zeros(4 * m, np.uint32), np.zeros(4 * m, np.uint32)
    uniform4, normal4, normal2 = (np.zeros(4 * m, np.float32) for _ in range(3))
    module().get_function("philox4")(
        np.uint64(seed), np.uint64(off), np.int32(m), drv.Out(bits4), drv.Out(bits1),
        drv.Out(uniform4), drv.Out(normal4), drv.Out(normal2), block=(1, 1, 1), grid=(1, 1))
    given = f"seed {seed}, offset {off}"
    assert (bits4 == bits1).all(), given
    # curand_uniform4 is (x + 1/2) 2^-32 of each word, exactly.
    expected = ((bits1.astype(np.float32) * np.float32(2.0**-32)) + np.float32(2.0**-33))
    assert (uniform4 == expected.astype(np.float32)).all(), given
    assert (normal4 == normal2).all(), given


# ---- what the CPU backend does not provide ---------------------------------------
@dataclass
class Case:
    name: str
    source: str
    message: str


UNSUPPORTED = [
    Case("MTGP32 state", "curandStateMtgp32_t* s, float* out) { out[0] = curand_uniform(s); }",
         r"MTGP32 generator \(curandStateMtgp32_t\) is not available on cudakit's CPU backend"),
]


@pytest.mark.skipif(drv.backend() != "cpu", reason="the GPU provides these states")
@pytest.mark.parametrize("case", UNSUPPORTED, ids=lambda c: c.name)
def test_unsupported_state_is_refused_by_name(case: Case) -> None:
    source = ("#include <curand_kernel.h>\nextern \"C\" __global__ void k(" + case.source)
    with pytest.raises(drv.CompileError, match=case.message) as info:
        compiler.SourceModule(source, no_extern_c=True)
    assert "use one of those, or run this kernel on a GPU" in str(info.value)


UNSUPPORTED_HEADERS = [
    Case("host API", "#include <curand.h>\n", r"<curand.h> is not supported on the CPU backend"),
    Case("MTGP32 kernel header", "#include <curand_mtgp32_kernel.h>\n",
         r"<curand_mtgp32_kernel.h> is not supported.*not MTGP32 or the host API"),
    Case("discrete distributions", "#include <curand_kernel.h>\n#include <curand_discrete2.h>\n",
         r"<curand_discrete2.h> is not supported.*provides the device API of <curand_kernel.h>"),
]


@pytest.mark.skipif(drv.backend() != "cpu", reason="the GPU has the toolkit's headers")
@pytest.mark.parametrize("case", UNSUPPORTED_HEADERS, ids=lambda c: c.name)
def test_other_curand_headers_are_refused_by_name(case: Case) -> None:
    with pytest.raises(drv.CompileError, match=case.message):
        compiler.SourceModule(case.source + "__global__ void k(float* x) { x[0] = 1.f; }\n")


def test_the_toolkits_parts_of_curand_kernel_name_the_whole(tmp_path: Path) -> None:
    # <curand_philox4x32_x.h> and friends are parts of <curand_kernel.h> (on
    # the CPU backend they bring all of it); a user's own curand_*.h in an
    # include directory stays the user's.
    (tmp_path / "curand_seed.h").write_text("#define MY_SEED 1234\n")
    source = r"""
#include <curand_kernel.h>
#include <curand_philox4x32_x.h>
#include <curand_normal.h>
#include "curand_seed.h"
__global__ void k(unsigned int* out) {
  curandStatePhilox4_32_10_t s;
  curand_init(MY_SEED, 5, 7, &s);
  out[0] = curand(&s);
}
"""
    out = np.zeros(1, np.uint32)
    compiler.SourceModule(source, include_dirs=[str(tmp_path)]).get_function("k")(
        drv.Out(out), block=(1, 1, 1))
    assert out[0] == PINNED_FIRST["philox"][0][0]


def test_the_header_is_added_only_where_included() -> None:
    # A kernel that does not include <curand_kernel.h> may use its names.
    source = r"""
__device__ unsigned int curand(unsigned int* state) { return *state = *state * 1664525u + 1013904223u; }
__global__ void k(unsigned int* out) { unsigned int s = out[0]; out[0] = curand(&s); }
"""
    out = np.array([7], np.uint32)
    compiler.SourceModule(source).get_function("k")(drv.InOut(out), block=(1, 1, 1))
    assert out[0] == np.uint32(7 * 1664525 + 1013904223)


def test_curand_kernel_under_extern_c() -> None:
    # SourceModule wraps the source in extern "C" by default; the header's
    # overloads keep C++ linkage inside it.
    source = r"""
#include <curand_kernel.h>
__global__ void k(unsigned int* out) {
  curandStatePhilox4_32_10_t s;
  curand_init(1234, 5, 7, &s);
  out[0] = curand(&s);
}
"""
    out = np.zeros(1, np.uint32)
    compiler.SourceModule(source).get_function("k")(drv.Out(out), block=(1, 1, 1))
    assert out[0] == PINNED_FIRST["philox"][0][0]


def test_curand_kernel_included_by_a_users_header(tmp_path: Path) -> None:
    (tmp_path / "my_rng.h").write_text(
        "#include <curand_kernel.h>\n"
        "__device__ unsigned int first_bits(unsigned long long seed) {\n"
        "  curandStateMRG32k3a_t s;\n  curand_init(seed, 5, 7, &s);\n  return curand(&s);\n}\n")
    # no_extern_c: the user's header brings the toolkit's C++ header on a GPU,
    # which (as with nvcc and PyCUDA) may not sit inside SourceModule's
    # extern "C" block; only #includes in the source itself are moved out.
    module = compiler.SourceModule(
        '#include "my_rng.h"\n'
        'extern "C" __global__ void k(unsigned int* out) { out[0] = first_bits(1234); }\n',
        include_dirs=[str(tmp_path)], no_extern_c=True)
    out = np.zeros(1, np.uint32)
    module.get_function("k")(drv.Out(out), block=(1, 1, 1))
    assert out[0] == PINNED_FIRST["mrg32k3a"][0][0]


def test_nvrtc_does_not_get_the_cpu_header() -> None:
    # NVRTC compiles the toolkit's own <curand_kernel.h> (where the toolkit's
    # include directory is on its path); the CPU backend's is never added.
    try:
        cubin = compiler.compile(kernels_source(), arch="sm_90", no_extern_c=True)
    except drv.CompileError as error:
        assert "curand_kernel_cpu" not in str(error) and "cudakit_curand" not in str(error)
    else:
        assert cubin[:4] == b"\x7fELF"


# ---- the GPU and the CPU backend, same kernels -----------------------------------
CPU_CHILD = """
import sys
import numpy as np
sys.path.insert(0, {directory!r})
import test_curand_kernel_cpu as t
np.savez({path!r}, **t.run_draw({name!r}, {seed}))
"""
# Outputs the CPU backend computes as the GPU does, step for step.
EXACT = ("bits", "uniform", "uniform_double", "normal", "normal2", "normal_double",
         "normal2_double", "log_normal")


@pytest.mark.gpu
@pytest.mark.parametrize("name", STATES)
def test_gpu_matches_cpu_backend(name: str, tmp_path: Path) -> None:
    from child_process import checked, run_code

    seed = int(np.random.default_rng().integers(1 << 63))
    gpu = run_draw(name, seed)
    path = tmp_path / "cpu.npz"
    checked(run_code(CPU_CHILD.format(directory=str(Path(__file__).parent), name=name,
                                      seed=seed, path=str(path)), CUDAKIT_BACKEND="cpu"))
    with np.load(path) as cpu_file:
        cpu = dict(cpu_file)
    what = f"{name}, seed {seed}"
    for key in EXACT:
        assert (gpu[key] == cpu[key]).all(), f"{what}: {key} differs"
    # Knuth's method (lambda < 64, from the GPU's expf), the rejection method
    # (64...4000, from the SFU's ex2/lg2/rsqrt/rcp) and lambda > 4000
    # (normal_double rounded to an integer): the same integers.
    for column, lam in enumerate((4.5, 150.0, 5000.0)):
        differ = np.flatnonzero(gpu["poisson"][:, column] != cpu["poisson"][:, column])
        assert differ.size == 0, (f"{what}: poisson({lam}) differs in {differ.size} draws, "
                                  f"first at {differ[0]}")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
