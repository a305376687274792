"""Separate compilation and dynamic parallelism: PyCUDA's DynamicModule,
DynamicSourceModule, driver.Linker, driver.jit_input_type, compiler.compile
and driver.module_from_buffer.

PyCUDA's test_recursive_launch, adapted so its results are checked, and a
single-source parent / child program run on every backend (the CPU backend
runs a child grid at its launch). The GPU tests (marker `gpu`) are PyCUDA's
test_jit_link_module, links of two sources (an extern __device__ function, a
kernel of another source launched from the device), and the bad inputs of
a link. compile() for a named arch needs NVRTC but no GPU; the CPU backend's
refusals of what needs a GPU are checked where it runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import _core
from cudakit.compiler import DynamicModule, DynamicSourceModule, SourceModule, compile

HAS_GPU = drv.backend() == "cuda"
cpu_only = pytest.mark.skipif(HAS_GPU, reason="checks the CPU backend's refusal; this has a GPU")


def _needs_nvrtc() -> None:
    try:
        compile("__global__ void probe() {}", arch="sm_90", target="ptx")
    except drv.NvrtcNotFound as error:  # pragma: no cover - machines without NVRTC
        pytest.skip(f"NVRTC is not installed: {error}")


def _needs_dynamic_parallelism() -> None:
    if HAS_GPU and drv.Context.get_device().compute_capability() < (3, 5):
        pytest.skip("dynamic parallelism needs compute capability 3.5 or newer")


# PyCUDA's test_recursive_launch program, with two changes that make its
# results deterministic so they can be checked: the block synchronizes
# after copying a and b to shared memory (the child grid doubles a in place,
# and may run while the parent does), and one thread launches the child
# (PyCUDA's has each of the 100 threads launch it, so `a` is doubled an
# unknown number of times and d races).
RECURSIVE_SOURCE = """
__device__ void  saxpy(double* s, float a, long* p, int b, long* q)
{
    int tx = threadIdx.x;
    s[tx] = a*p[tx]+b*q[tx];
}

__global__ void  sub(long* p, long* q, long* d)
{
    int tx = threadIdx.x;
    p[tx] = 2*p[tx];
    d[tx] = p[tx]-q[tx];
}

__device__ long add(long p, long q)
{
    p = p+1;
    return p+q;
}

__global__ void math(long* a, long* b, long* c, long* d, long* e, double* f)
{
    int tx = threadIdx.x;
    __shared__ long x[100];
    x[tx] = a[tx + 0];
    __shared__ long y[100];
    y[tx] = b[tx + 0];
    __syncthreads();
    c[tx]=add(x[tx],y[tx]);
    dim3 dimGrid_sub(1,1,1);
    dim3 dimBlock_sub(100,1,1);
    if (tx == 0)
        sub<<<dimGrid_sub,dimBlock_sub>>>(a,b,d);
    saxpy(f,1.0345,x,-2,y);
}
"""


def test_recursive_launch_results_match_numpy() -> None:
    _needs_dynamic_parallelism()
    rng = np.random.default_rng(1)
    a = rng.integers(1, 1000, size=100, dtype=np.int64)
    b = rng.integers(1, 1000, size=100, dtype=np.int64)
    c = np.zeros_like(a)
    d = np.zeros_like(a)
    e = np.zeros_like(a)
    f = np.zeros(100, dtype=np.float64)
    a_gpu, b_gpu = drv.to_device(a), drv.to_device(b)
    c_gpu, d_gpu, e_gpu, f_gpu = (drv.mem_alloc(x.nbytes) for x in (c, d, e, f))

    mod = DynamicSourceModule(RECURSIVE_SOURCE, keep=True)
    mod.get_function("math")(a_gpu, b_gpu, c_gpu, d_gpu, e_gpu, f_gpu,
                             block=(100, 1, 1), grid=(1, 1, 1))
    drv.Context.synchronize()
    for host, dev in ((c, c_gpu), (d, d_gpu), (f, f_gpu)):
        drv.memcpy_dtoh(host, dev)
    a_after = drv.from_device(a_gpu, a.shape, a.dtype)

    np.testing.assert_array_equal(c, a + 1 + b)
    # The child grid: a doubled in place, d = 2a - b.
    np.testing.assert_array_equal(a_after, 2 * a)
    np.testing.assert_array_equal(d, 2 * a - b)
    # saxpy in the parent, from the shared copies (taken before the child
    # ran): float a times long -> float, plus int times long -> float.
    expected_f = (np.float32(1.0345) * a.astype(np.float32)
                  + (-2 * b).astype(np.float32)).astype(np.float64)
    np.testing.assert_allclose(f, expected_f, rtol=1e-6)


@pytest.mark.gpu
def test_pycuda_recursive_launch_program_runs_unchanged() -> None:
    """PyCUDA's own program, every thread launching a child grid: it links
    and runs (its results race, and PyCUDA's test checks none)."""
    _needs_dynamic_parallelism()
    source = RECURSIVE_SOURCE.replace("    __syncthreads();\n", "").replace(
        "    if (tx == 0)\n        sub", "    sub")
    assert "if (tx == 0)" not in source and "__syncthreads" not in source
    a = np.random.randint(10, size=100)
    b = np.random.randint(10, size=100)
    buffers = [drv.to_device(a), drv.to_device(b)] + [drv.mem_alloc(a.nbytes) for _ in range(3)]
    f_gpu = drv.to_device(np.array(a, dtype="d"))
    mod = DynamicSourceModule(source, keep=True)
    mod.get_function("math")(*buffers, f_gpu, block=(100, 1, 1), grid=(1, 1, 1))
    drv.Context.synchronize()
    c = drv.from_device(buffers[2], a.shape, a.dtype)
    assert c.shape == (100,)


OUTER_CU = """#include <cstdio>
__global__ void test_kernel() {
    extern __global__ void test_kernel_inner();
    printf("Hello outer world!\\n");
    test_kernel_inner<<<2, 1>>>();
}"""

INNER_CU = """#include <cstdio>
__global__ void test_kernel_inner() {
    printf("  Hello inner world!\\n");
}"""


@pytest.mark.gpu
def test_jit_link_module_prints_from_both_grids() -> None:
    """PyCUDA's test_jit_link_module as it is, in a child process so that the
    device's printf output (flushed at exit) can be read."""
    _needs_dynamic_parallelism()
    program = textwrap.dedent(f"""
        import cudakit.autoinit
        import cudakit.driver as drv
        from cudakit.compiler import DEFAULT_NVCC_FLAGS, DynamicModule
        mod = DynamicModule()
        mod.add_source({OUTER_CU!r}, nvcc_options=["-rdc=true", "-lcudadevrt", *DEFAULT_NVCC_FLAGS])
        mod.add_source({INNER_CU!r}, nvcc_options=["-rdc=true", "-lcudadevrt", *DEFAULT_NVCC_FLAGS])
        mod.add_stdlib("cudadevrt")
        mod.link()
        test_kernel = mod.get_function("test_kernel")
        test_kernel(grid=(2, 1), block=(1, 1, 1))
        drv.Context.synchronize()
    """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("Hello outer world!") == 2, result.stdout
    assert result.stdout.count("Hello inner world!") == 4, result.stdout


def test_child_grids_of_one_source_write_their_results() -> None:
    """Each parent block's first thread launches a child grid that counts
    its threads into the block's slot; the parent's other threads (and the
    launching one, after the launch) see their own coordinates."""
    _needs_dynamic_parallelism()
    mod = DynamicSourceModule("""
    __global__ void inner(int* counts, int slot, const int* weights) {
        atomicAdd(&counts[slot], weights[slot] * (int)(threadIdx.x + 1));
    }
    __global__ void outer(int* counts, int children, const int* weights, int* coords) {
        if (threadIdx.x == 0) inner<<<children, 3>>>(counts, blockIdx.x, weights);
        coords[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x * 100 + threadIdx.x;
    }""")
    blocks, children, threads = 7, 5, 33
    weights = np.random.default_rng(4).integers(1, 50, size=blocks).astype(np.int32)
    counts = drv.to_device(np.zeros(blocks, dtype=np.int32))
    coords = drv.mem_alloc(blocks * threads * 4)
    mod.get_function("outer")(counts, np.int32(children), drv.In(weights), coords,
                              grid=(blocks, 1), block=(threads, 1, 1))
    np.testing.assert_array_equal(drv.from_device(counts, (blocks,), np.int32),
                                  weights * children * (1 + 2 + 3))
    expected = (np.arange(blocks)[:, None] * 100 + np.arange(threads)[None, :]).ravel()
    np.testing.assert_array_equal(drv.from_device(coords, (blocks * threads,), np.int32),
                                  expected)


@pytest.mark.gpu
def test_child_grids_across_sources_write_their_results() -> None:
    """The outer kernel in one source launches a kernel defined in another;
    each child block counts itself into its parent block's slot."""
    _needs_dynamic_parallelism()
    outer = """
    __global__ void inner(int* counts, int slot);
    __global__ void outer(int* counts, int children) {
        if (threadIdx.x == 0) inner<<<children, 3>>>(counts, blockIdx.x);
    }"""
    inner = """
    __global__ void inner(int* counts, int slot) {
        atomicAdd(&counts[slot], threadIdx.x + 1);
    }"""
    mod = DynamicModule()
    mod.add_source(outer, nvcc_options=["-rdc=true"], name="outer.cu")
    mod.add_source(inner, nvcc_options=["-rdc=true"], name="inner.cu")
    mod.add_stdlib("cudadevrt").add_stdlib("cudadevrt")  # once, however often asked
    mod.link()
    blocks, children = 7, 5
    counts = drv.to_device(np.zeros(blocks, dtype=np.int32))
    mod.get_function("outer")(counts, np.int32(children), grid=(blocks, 1), block=(32, 1, 1))
    result = drv.from_device(counts, (blocks,), np.int32)
    np.testing.assert_array_equal(result, np.full(blocks, children * (1 + 2 + 3)))


@pytest.mark.gpu
def test_two_sources_linked_through_an_extern_device_function() -> None:
    caller = """
    extern __device__ float blend(float x, float y);
    __global__ void apply(float* out, const float* x, const float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = blend(x[i], y[i]);
    }"""
    callee = """
    __device__ float blend(float x, float y) { return 0.25f * x - 3.0f * y; }
    """
    messages = []
    mod = DynamicModule(message_handler=lambda ok, info, error: messages.append((ok, error)))
    mod.add_source(caller, nvcc_options=["-rdc=true"]).add_source(callee, nvcc_options=["-rdc=true"])
    mod.link()
    assert messages == [(True, "")]
    n = 1000
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    mod.get_function("apply")(drv.Out(out), drv.In(x), drv.In(y), np.int32(n),
                              block=(128, 1, 1), grid=((n + 127) // 128, 1))
    np.testing.assert_allclose(out, np.float32(0.25) * x - np.float32(3.0) * y, rtol=1e-6,
                               atol=1e-6)


@pytest.mark.gpu
def test_linker_takes_ptx_from_compile_and_a_cubin_loads_from_a_buffer() -> None:
    callee = compile("__device__ int twice(int v) { return 2 * v; }",
                     options=["-rdc=true"], target="ptx")
    assert b".visible .func" in callee
    linker = drv.Linker()
    linker.add_data(callee, drv.jit_input_type.PTX, "callee.ptx")
    caller = compile("""
        extern __device__ int twice(int v);
        __global__ void run(int* a, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) a[i] = twice(a[i]) + 1;
        }""", options=["-rdc=true"], target="ptx")
    linker.add_data(caller.decode(), drv.jit_input_type.PTX, "caller.ptx")
    module = linker.link_module()
    a = np.random.default_rng(2).integers(-1000, 1000, size=333).astype(np.int32)
    out = a.copy()
    module.get_function("run")(drv.InOut(out), np.int32(a.size), block=(64, 1, 1), grid=(6, 1))
    np.testing.assert_array_equal(out, 2 * a + 1)

    cubin = compile("__global__ void inc(int* a, int n) {"
                    " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += 7; }")
    assert cubin[:4] == b"\x7fELF"
    inc = drv.module_from_buffer(cubin).get_function("inc")
    out = a.copy()
    inc(drv.InOut(out), np.int32(a.size), block=(64, 1, 1), grid=(6, 1))
    np.testing.assert_array_equal(out, a + 7)


@pytest.mark.gpu
def test_an_undefined_symbol_fails_with_the_linkers_log() -> None:
    messages = []
    mod = DynamicModule(message_handler=lambda ok, info, error: messages.append((ok, error)))
    mod.add_source("""
        extern __device__ int nowhere_defined(int);
        __global__ void k(int* a) { a[threadIdx.x] = nowhere_defined(a[0]); }""",
                   nvcc_options=["-rdc=true"])
    with pytest.raises(drv.Error, match="nowhere_defined") as caught:
        mod.link()
    assert "hint:" in str(caught.value)
    assert messages and messages[0][0] is False and "nowhere_defined" in messages[0][1]


@pytest.mark.gpu
def test_a_device_launch_without_cudadevrt_says_to_add_it() -> None:
    _needs_dynamic_parallelism()
    mod = DynamicModule()
    mod.add_source("""
        __global__ void leaf(int* a) { a[threadIdx.x] = 1; }
        __global__ void root(int* a) { leaf<<<1, 4>>>(a); }""", nvcc_options=["-rdc=true"])
    with pytest.raises(drv.Error, match="cudadevrt"):
        mod.link()


@pytest.mark.gpu
def test_missing_cudadevrt_names_where_it_looked(tmp_path) -> None:
    nowhere = tmp_path / "no-cuda-here"
    with pytest.raises(drv.LibraryNotFound) as caught:
        DynamicSourceModule("__global__ void k() {}", cuda_libdir=str(nowhere))
    message = str(caught.value)
    assert str(nowhere / "libcudadevrt.a") in message
    assert "cuda_libdir" in message


@pytest.mark.gpu
def test_bad_inputs_of_a_link() -> None:
    linker = drv.Linker()
    with pytest.raises(drv.ArgumentError, match="unknown input type 42"):
        linker.add_data(b"//", 42)
    with pytest.raises(drv.ArgumentError, match="jit_input_type.PTX"):
        linker.add_data(b"//", "ptx-ish")
    with pytest.raises(drv.ArgumentError, match="empty"):
        linker.add_data(b"", drv.jit_input_type.PTX)
    with pytest.raises(drv.ArgumentError, match="does not exist"):
        linker.add_file("/nonexistent/libfoo.a", drv.jit_input_type.LIBRARY)
    with pytest.raises(drv.ArgumentError, match="nothing was added"):
        linker.link_module()
    with pytest.raises(drv.ArgumentError, match="GENERATE_LINE_INFO"):
        drv.Linker(options=[(drv.jit_option.MAX_REGISTERS, 32)])

    mod = DynamicModule()
    with pytest.raises(drv.ArgumentError, match="not linked yet"):
        mod.get_function("k")
    mod.add_source("__global__ void k(int* a) { a[0] = 1; }")
    mod.link()
    with pytest.raises(drv.ArgumentError, match="already linked"):
        mod.add_source("__global__ void j() {}")
    assert "k" in mod.kernel_names()


# ---- everywhere: compile() for a named arch, and the CPU backend's refusals ----

def test_compile_returns_ptx_or_cubin_for_a_named_arch() -> None:
    _needs_nvrtc()
    source = """
    extern __device__ float helper(float);
    __global__ void k(float* a) { a[threadIdx.x] = helper(a[threadIdx.x]); }"""
    ptx = compile(source, arch="sm_90", options=["-rdc=true"], target="ptx")
    assert isinstance(ptx, bytes) and not ptx.endswith(b"\0")
    assert b".target sm_90" in ptx
    assert b".extern .func" in ptx and b"helper" in ptx
    assert b".entry k" in ptx  # extern "C": the kernel keeps its name
    cubin = compile("__global__ void k(float* a) { a[0] = 1.0f; }", arch="sm_90")
    assert cubin[:4] == b"\x7fELF"
    ptx_rdc = compile(source, options=["--relocatable-device-code=true"], arch="sm_90",
                      target="ptx")
    assert b".extern .func" in ptx_rdc


def test_compile_refuses_what_it_cannot_make() -> None:
    with pytest.raises(drv.ArgumentError, match="'cubin' or 'ptx'"):
        compile("__global__ void k() {}", arch="sm_90", target="elf")
    with pytest.raises(drv.NotSupported, match="fatbin"):
        compile("__global__ void k() {}", arch="sm_90", target="fatbin")


def test_a_source_module_links_no_library() -> None:
    with pytest.raises(drv.ArgumentError, match="DynamicSourceModule"):
        SourceModule("__global__ void k(int* a) { a[0] = 1; }", options=["-lcudadevrt"])


def test_module_from_buffer_refuses_bytes_that_are_no_module() -> None:
    with pytest.raises(drv.ArgumentError, match="cannot be loaded|holds"):
        drv.module_from_buffer(b"certainly not a module")
    with pytest.raises(drv.ArgumentError, match="empty"):
        drv.module_from_buffer(b"")
    with pytest.raises(drv.ArgumentError, match="JIT options"):
        drv.module_from_buffer(b"//", options=[(drv.jit_option.MAX_REGISTERS, 32)])


@pytest.mark.gpu
def test_module_from_buffer_and_file_load_a_compiled_cubin(tmp_path) -> None:
    image = compile("__global__ void add3(int* a, int n) {"
                    " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += 3; }")
    module = drv.module_from_buffer(image)
    a = np.random.default_rng(9).integers(-50, 50, size=200).astype(np.int32)
    out = a.copy()
    module.get_function("add3")(drv.InOut(out), np.int32(a.size), block=(64, 1, 1), grid=(4, 1))
    np.testing.assert_array_equal(out, a + 3)
    path = tmp_path / "add3.cubin"
    path.write_bytes(image)
    out = a.copy()
    drv.module_from_file(path).get_function("add3")(drv.InOut(out), np.int32(a.size),
                                                    block=(64, 1, 1), grid=(4, 1))
    np.testing.assert_array_equal(out, a + 3)


def test_find_cuda_library_names_every_path_tried(tmp_path) -> None:
    nowhere = tmp_path / "nowhere"
    with pytest.raises(drv.LibraryNotFound) as caught:
        _core._find_cuda_library("cudadevrt", [str(nowhere)])
    assert str(nowhere / "libcudadevrt.a") in str(caught.value)
    (tmp_path / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    found = _core._find_cuda_library("cudadevrt", [str(nowhere), str(tmp_path)])
    assert found == str(tmp_path / "libcudadevrt.a")


@cpu_only
def test_cpu_backend_refuses_separate_compilation_saying_a_gpu_is_needed() -> None:
    mod = DynamicModule()
    mod.add_source("__global__ void k(int* a) { a[0] = 1; }")
    refusals = [lambda: mod.add_source("__global__ void j(int* a) { a[0] = 2; }"),
                lambda: mod.add_data(b"//", drv.jit_input_type.PTX),
                lambda: mod.add_file(__file__, drv.jit_input_type.OBJECT),
                lambda: mod.add_stdlib("cublas_device"),
                lambda: drv.Linker()]
    for refuse in refusals:
        with pytest.raises(drv.NotSupported) as caught:
            refuse()
        message = str(caught.value)
        assert "separate compilation" in message and "GPU" in message, message
    mod.add_stdlib("cudadevrt")  # the CPU runtime plays its part: nothing to add
    mod.link()
    assert mod.kernel_names() == ["k"]


@cpu_only
def test_cpu_backend_refuses_a_child_that_synchronizes_by_name() -> None:
    with pytest.raises(drv.CompileError) as caught:
        DynamicSourceModule("""
        __global__ void child(int* a) { __syncthreads(); a[threadIdx.x] = 1; }
        __global__ void parent(int* a) {
            child<<<1, 4>>>(a); }""")
    message = str(caught.value)
    assert "device-side launch of 'child', which synchronizes" in message
    assert "line 4" in message


@cpu_only
def test_cpu_backend_compile_needs_a_named_arch() -> None:
    with pytest.raises(drv.NotSupported, match="arch='sm_90'"):
        compile("__global__ void k() {}")


def test_shift_operators_are_not_mistaken_for_a_launch() -> None:
    mod = SourceModule("""
    __global__ void shifts(unsigned* a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] = (a[i] << 3) | (a[i] >> 29) | (1u << (i % 5));
    }""")
    a = np.random.default_rng(3).integers(0, 2**32, size=300, dtype=np.uint32)
    out = a.copy()
    mod.get_function("shifts")(drv.InOut(out), np.int32(a.size), block=(128, 1, 1), grid=(3, 1))
    i = np.arange(a.size, dtype=np.uint32)
    expected = (a << np.uint32(3)) | (a >> np.uint32(29)) | (np.uint32(1) << (i % 5))
    np.testing.assert_array_equal(out, expected)


def test_keep_writes_the_sources(capsys) -> None:
    DynamicSourceModule("__global__ void k(int* a) { a[0] = 1; }", keep=True)
    out = capsys.readouterr().out
    assert "*** compiler output in" in out
    directory = out.split("*** compiler output in", 1)[1].split()[0]
    assert any(name.endswith(".cu") for name in os.listdir(directory))
