"""Python kernels: cudakit.cuda against Numba-CUDA (and against cudakit's
own CUDA C launch), one process per fresh-process figure, a table at the
end. Targets (docs/performance.md, P9/P10): first call of a new vector add
in a fresh process <= 0.25x Numba's with the disk cache off and <= 5 ms with
it; launch overhead <= 0.3x Numba's and <= 1.2x a CUDA C launch; the
tutorial's matmul in Python within 1.05x of the CUDA C one; on the CPU
backend the 64x64 tutorial matmul >= 1000x faster than Numba's simulator.

    python bench/peers/python_jit_bench.py [--quick] [--matmul-only] [--size N]

The matmul is timed four ways: the Python kernel as the tutorial writes it
(`tmp = 0.`, which Numba types float64: a float32 product converted and
added in float64 each step), the same with `tmp = np.float32(0.)`, and the
CUDA C kernel with a float and with a double sum. The Python kernel's
float64 arithmetic is Numba's semantics and is kept; the double CUDA C row
shows how much of the gap to the float one is that arithmetic alone.

Numba is used where it imports (numba-cuda needs `numpy.row_stack`, which
NumPy 2 removed: it is set to numpy.vstack before the import).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
NUMBA_PRELUDE = "import numpy\nnumpy.row_stack = numpy.vstack\n"

VECTOR_ADD = '''
@cuda.jit
def add_kernel_{tag}(a, b, c):
    idx = cuda.grid(1)
    if idx < c.size:
        c[idx] = a[idx] + b[idx]
'''

FIRST_CALL = '''
import time, numpy as np
t0 = time.perf_counter()
{import_line}
{kernel}
a = cuda.to_device(np.ones(1000, np.float32)); c = cuda.device_array_like(a)
cuda.synchronize()
t1 = time.perf_counter()
add_kernel_{tag}[4, 256](a, a, c)
cuda.synchronize()
t2 = time.perf_counter()
print(f"{{(t2 - t1) * 1e3:.3f}} {{(t1 - t0) * 1e3:.3f}}")
'''

def tutorial_matmul() -> str:
    """The Numba tutorial's shared-memory matmul as its program in the test
    suite has it (tests/python/jit/tutorial/matmul_shared.py, the tutorial's
    code with the import changed): from `TPB = 16` to the end of the kernel."""
    text = (ROOT / "tests" / "python" / "jit" / "tutorial" / "matmul_shared.py").read_text(
        encoding="utf-8")
    return "\n" + text[text.index("TPB = 16"):text.index("def test_matmul")].rstrip() + "\n"


MATMUL = tutorial_matmul()

# The same kernel with a float32 accumulator (Numba then types tmp float32).
MATMUL_F32 = (MATMUL.split("@cuda.jit", 1)[1]
              .replace("def matmul_shared_mem(", "def matmul_shared_mem_f32(")
              .replace("tmp = 0.0", "tmp = np.float32(0.0)"))
MATMUL_F32 = "\n@cuda.jit" + MATMUL_F32

SIMULATOR_MATMUL = '''
import time, math, numpy as np
{import_line}
{matmul}
n = 64
A = np.random.randn(n, n).astype(np.float32); B = np.random.randn(n, n).astype(np.float32)
dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
grid = (math.ceil(n / TPB), math.ceil(n / TPB))
matmul_shared_mem[grid, (TPB, TPB)](dA, dB, dC); cuda.synchronize()
t = time.perf_counter()
matmul_shared_mem[grid, (TPB, TPB)](dA, dB, dC); cuda.synchronize()
elapsed = time.perf_counter() - t
assert np.allclose(dC.copy_to_host(), A @ B, rtol=1e-4, atol=1e-4)
print(f"{{elapsed * 1e3:.3f}}")
'''


SCRIPTS = Path(tempfile.mkdtemp(prefix="cudakit_jit_bench_"))


def run_python(code: str, env: dict[str, str] | None = None, timeout: int = 600,
               name: str | None = None) -> str:
    """Runs `code` as a script in a fresh process; `name` fixes the script's
    path (the generated source names it in #line, so a cache hit needs it)."""
    path = str(SCRIPTS / (name or f"script_{time.time_ns()}.py"))
    Path(path).write_text(code)
    try:
        full_env = dict(os.environ, **(env or {}))
        result = subprocess.run([sys.executable, path], capture_output=True, text=True,
                                env=full_env, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr
                               else f"exit {result.returncode}")
        return result.stdout.strip().splitlines()[-1]
    finally:
        os.unlink(path)


def numba_available() -> str | None:
    try:
        run_python(NUMBA_PRELUDE + "from numba import cuda\nprint(cuda.is_available())")
    except Exception as error:  # noqa: BLE001
        return f"numba not importable ({error})"
    return None


def first_call(import_line: str, env: dict[str, str], repeats: int,
               same_kernel: bool = False) -> float:
    """Median first-call time of a vector add in fresh processes: a new
    kernel (new source) each time, or with `same_kernel` one kernel whose
    compiled code an earlier process left in the disk cache."""
    times = []
    fixed = f"{os.getpid()}_{time.time_ns()}"
    if same_kernel:  # populate the cache
        run_python(FIRST_CALL.format(import_line=import_line, tag=fixed,
                                     kernel=VECTOR_ADD.format(tag=fixed)), env,
                   name=f"first_call_{fixed}.py")
    for r in range(repeats):
        tag = fixed if same_kernel else f"{os.getpid()}_{time.time_ns()}_{r}"
        code = FIRST_CALL.format(import_line=import_line, tag=tag,
                                 kernel=VECTOR_ADD.format(tag=tag))
        times.append(float(run_python(code, env, name=f"first_call_{tag}.py").split()[0]))
    return float(np.median(times))


def per_call(function: Callable[[], Any], sync: Callable[[], Any], n: int) -> float:
    for _ in range(min(n, 200)):
        function()
    sync()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            function()
        sync()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


def load_kernels(source: str) -> Any:
    """`source` as a module in a file (kernels are translated from their source)."""
    import importlib.util
    directory = tempfile.mkdtemp(prefix="cudakit_bench_")
    path = Path(directory) / "bench_kernels.py"
    path.write_text("import numpy as np\nfrom cudakit import cuda\n" + source)
    spec = importlib.util.spec_from_file_location("bench_kernels", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def cuda_c_matmul_source() -> str:
    text = (ROOT / "tools" / "workloads" / "tiled_matmul.hpp").read_text()
    body = text.split('R"(', 1)[1].split(')";', 1)[0]
    return 'extern "C" {\n' + body + "\n}\n"


def cuda_c_matmul_kernel(accumulator: str) -> Any:
    """The tutorial's CUDA C matmul, its sum in `accumulator` (float as
    written, or double: the type Numba gives the Python kernel's `tmp = 0.`)."""
    from cudakit import _core
    source = cuda_c_matmul_source()
    if accumulator == "double":
        source = source.replace("float sum = 0.0f;", "double sum = 0.0;")
        assert "double sum" in source
    params = [_core.JitParam.pointer()] * 3 + [_core.JitParam.scalar("int32")] * 3
    return _core.JitKernel(source, "matmul_shared", params)


def matmul_rows(kernels: Any, size: int, iters: int) -> list[tuple[str, str, str]]:
    """The tutorial matmul four ways on the same data, each result checked:
    the Python kernel as written (`tmp = 0.`: float64, as Numba types it),
    the same with `tmp = np.float32(0.)`, and the CUDA C kernel with a float
    and with a double sum. Timed in interleaved rounds, median per variant.
    The Python kernel's honest reference is the CUDA C one with the same
    accumulator type; the float CUDA C kernel is the tutorial's figure."""
    from cudakit import cuda
    rng = np.random.default_rng(0)
    A = rng.standard_normal((size, size)).astype(np.float32)
    B = rng.standard_normal((size, size)).astype(np.float32)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    dA, dB = cuda.to_device(A), cuda.to_device(B)
    grid = ((size + 15) // 16, (size + 15) // 16)
    def address(array: Any) -> int:  # a ctypes c_void_p, as Numba's
        return array.device_ctypes_pointer.value or 0

    ptrs = [address(x) for x in (dA, dB)]
    # matmul_shared(A, B, C, M, N, K): C (M x N) = A (M x K) * B (K x N).
    dims = [size] * 3
    variants: dict[str, Callable[[Any], Any]] = {}
    for accumulator in ("float", "double"):
        kernel = cuda_c_matmul_kernel(accumulator)
        variants[f"CUDA C, {accumulator} sum"] = (
            lambda out, kernel=kernel: kernel.launch(
                (grid[0], grid[1], 1), (16, 16, 1), 0, 0,
                tuple(ptrs + [address(out)] + dims)))
    variants["Python, tmp = 0. (float64, as Numba)"] = (
        lambda out: kernels.matmul_shared_mem[grid, (16, 16)](dA, dB, out))
    variants["Python, tmp = np.float32(0.)"] = (
        lambda out: kernels.matmul_shared_mem_f32[grid, (16, 16)](dA, dB, out))
    outputs = {name: cuda.device_array((size, size), np.float32) for name in variants}
    for name, launch in variants.items():
        launch(outputs[name])
        cuda.synchronize()
        got = outputs[name].copy_to_host()
        assert np.allclose(got, expected, rtol=1e-3, atol=1e-3), f"{name}: wrong result"
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(3 if iters < 10 else 7):
        for name, launch in variants.items():
            out = outputs[name]
            times[name].append(per_call(lambda: launch(out), cuda.synchronize, iters))
    median = {name: float(np.median(v)) for name, v in times.items()}
    c_float, c_double = median["CUDA C, float sum"], median["CUDA C, double sum"]
    rows = []
    for name, us in median.items():
        if name.startswith("CUDA C"):
            note = "reference" if "float" in name else f"{us / c_float:.3f}x of float CUDA C"
        elif "float64" in name:
            note = (f"{us / c_float:.3f}x of float CUDA C (target <= 1.05x), "
                    f"{us / c_double:.3f}x of double CUDA C (same arithmetic)")
        else:
            note = f"{us / c_float:.3f}x of float CUDA C (same arithmetic)"
        rows.append((f"tutorial matmul {size}x{size}, {name}", f"{us / 1e3:.3f} ms", note))
    return rows


def _longest_loop(lines: list[str], label_of: Callable[[str], str | None],
                  target_of: Callable[[str], str | None]) -> list[str]:
    """The instructions of the longest loop (the span of a backward branch):
    the matmul's k loop, as the 16-step inner loop is unrolled."""
    labels, body, loops = {}, [], []
    for line in lines:
        label = label_of(line)
        if label is not None:
            labels[label] = len(body)
        elif line:
            target = target_of(line)
            if target is not None and labels.get(target, len(body) + 1) <= len(body):
                loops.append((labels[target], len(body)))
            body.append(line)
    if not loops:
        return []
    start, end = max(loops, key=lambda span: span[1] - span[0])
    return body[start:end + 1]


def _opcode_counts(instructions: list[str], groups: dict[str, str]) -> str:
    import re
    ops = [(i.split(None, 1)[1] if i.startswith("@") else i).split()[0].rstrip(";")
           for i in instructions]
    parts = [f"{name} {sum(1 for op in ops if re.match(pattern, op))}"
             for name, pattern in groups.items()]
    return f"{len(ops)} instructions ({', '.join(parts)})"


PTX_GROUPS = {"fma.f32": r"fma\.rn\.f32", "mul.f32": r"mul(\.rn)?\.f32",
              "cvt.f64.f32": r"cvt\.f64\.f32", "add.f64": r"add(\.rn)?\.f64",
              "ld.shared": r"ld\.shared", "64-bit integer": r"(add|sub|mul|mad|setp\.\w+)\.[su]64|"
              r"mul\.wide|cvt\.[su]64\.[su]32"}
SASS_GROUPS = {"FFMA": r"FFMA$", "FMUL": r"FMUL$", "F2F": r"F2F", "DADD": r"DADD|DFMA",
               "LDS": r"LDS", "integer": r"(I|UI)(ADD3|MAD|SETP)|LEA|SHF|LOP3|IMNMX|VIADD|MOV"}


def _sass_branch_target(line: str) -> str | None:
    """BRA `(.L_x_1) (nvdisasm) or BRA 0x320 (cuobjdump): the target."""
    import re
    match = re.search(r"BRA\s+(?:`\((\.L_x_\d+)\)|(0x[0-9a-f]+))", line)
    return (match.group(1) or match.group(2)) if match else None


def loop_counts(kernels: Any) -> list[str]:
    """The matmul's k loop in each variant, counted in PTX (NVRTC for sm_90)
    and, where ptxas and nvdisasm or cuobjdump are on PATH, in SASS."""
    import re
    import shutil
    from cudakit import _core
    sources = {
        "CUDA C, float sum": cuda_c_matmul_source(),
        "CUDA C, double sum": cuda_c_matmul_source().replace("float sum = 0.0f;",
                                                             "double sum = 0.0;"),
        "Python, tmp = 0.": next(iter(kernels.matmul_shared_mem.inspect_cuda_source().values())),
        "Python, tmp = np.float32(0.)": next(iter(
            kernels.matmul_shared_mem_f32.inspect_cuda_source().values())),
    }
    disassembler = shutil.which("nvdisasm") or shutil.which("cuobjdump")
    out = []
    for name, source in sources.items():
        try:
            ptx = _core.jit_compile_for_gpu(source, "compute_90")
        except Exception as error:  # noqa: BLE001
            out.append(f"{name}: no PTX ({error})")
            continue
        loop = _longest_loop(
            [line.strip() for line in ptx.splitlines()
             if line.strip() and not line.strip().startswith(("//", "{", "}"))],
            lambda line: line[:-1] if re.fullmatch(r"\$L__\w+:", line) else None,
            lambda line: (m.group(1) if (m := re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);",
                                                        line)) else None))
        text = f"{name}: k loop PTX {_opcode_counts(loop, PTX_GROUPS)}"
        if disassembler and shutil.which("ptxas"):
            with tempfile.TemporaryDirectory() as tmp:
                Path(tmp, "k.ptx").write_text(ptx)
                subprocess.run(["ptxas", "-arch=sm_90", "-O3", f"{tmp}/k.ptx", "-o",
                                f"{tmp}/k.cubin"], check=True)
                flag = "-c" if disassembler.endswith("nvdisasm") else "-sass"
                sass = subprocess.run([disassembler, flag, f"{tmp}/k.cubin"],
                                      capture_output=True, text=True).stdout
            lines = []
            for line in sass.splitlines():
                label = re.match(r"\s*(\.L_x_\d+):", line)
                code = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?);", line)
                if label:
                    lines.append(label.group(1) + ":")
                elif code and code.group(2) and not code.group(2).startswith("NOP"):
                    # A cuobjdump address doubles as a label.
                    lines.append(f"0x{int(code.group(1), 16):x}:")
                    lines.append(code.group(2))
            loop = _longest_loop(lines, lambda line: line[:-1] if line.endswith(":") else None,
                                 _sass_branch_target)
            text += f"; SASS {_opcode_counts(loop, SASS_GROUPS)}"
        out.append(text)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--matmul-only", action="store_true",
                        help="only the tutorial matmul, Python against CUDA C")
    parser.add_argument("--size", type=int, default=0,
                        help="matmul size (default 2048 on a GPU, 512 on the CPU)")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    rows: list[tuple[str, str, str, str]] = []

    from cudakit import _core
    from cudakit import cuda

    backend = _core.jit_backend()
    print(f"backend: {backend} ({_core.jit_device_name()})")
    if args.matmul_only:
        kernels = load_kernels(MATMUL + MATMUL_F32)
        size = args.size or (512 if backend == "cpu" else 2048)
        for name, ms, note in matmul_rows(kernels, size, 3 if backend == "cpu" else 50):
            print(f"{name}: {ms}  {note}")
        print("\n".join(loop_counts(kernels)))
        return
    numba_missing = numba_available()

    # ---- P10: first call in a fresh process -------------------------------------------
    ours_cold = first_call("from cudakit import cuda", {"CUDAKIT_CACHE": "0"}, repeats)
    ours_warm = first_call("from cudakit import cuda", {}, repeats, same_kernel=True)
    numba_cold = None
    if numba_missing is None and backend == "cuda":
        numba_cold = first_call(NUMBA_PRELUDE + "from numba import cuda", {}, repeats)
    rows.append(("P10 first call, new vector add, disk cache off", f"{ours_cold:.1f} ms",
                 f"{numba_cold:.1f} ms" if numba_cold else numba_missing or "GPU only",
                 f"{ours_cold / numba_cold:.2f}x (target <= 0.25x)" if numba_cold else "-"))
    rows.append(("P10 first call, vector add in the disk cache", f"{ours_warm:.1f} ms", "-",
                 "target <= 5 ms"))

    # ---- launch overhead ------------------------------------------------------------------
    kernels = load_kernels(VECTOR_ADD.format(tag="launch") + MATMUL + MATMUL_F32)
    kernel = kernels.add_kernel_launch
    a = cuda.to_device(np.ones(256, np.float32))
    c = cuda.device_array_like(a)
    n_launch = 2000 if args.quick else 20000
    ours_launch = per_call(lambda: kernel[1, 256](a, a, c), cuda.synchronize, n_launch)
    spec = next(iter(kernel.overloads.values()))
    objects = (a, a, c)  # read by the one converter, as every launch is
    core_launch = per_call(lambda: spec.kernel.launch((1, 1, 1), (256, 1, 1), 0, 0, objects),
                           cuda.synchronize, n_launch)
    source_module_launch = None
    try:
        from cudakit.compiler import SourceModule  # the PyCUDA layer
        module = SourceModule("__global__ void add(const float* a, const float* b, float* c, "
                              "int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
                              "if (i < n) c[i] = a[i] + b[i]; }")
        function = module.get_function("add")
        n32 = np.int32(256)
        source_module_launch = per_call(lambda: function(a, a, c, n32, block=(256, 1, 1),
                                                         grid=(1, 1)),
                                        cuda.synchronize, n_launch)
    except Exception as error:  # noqa: BLE001
        print(f"SourceModule launch not measured: {type(error).__name__}: {error}")
    numba_launch = None
    if numba_missing is None and backend == "cuda":
        # The kernel's text is not indented: put it outside the dedented block.
        numba_launch = float(run_python(NUMBA_PRELUDE + "import time, numpy as np\n"
                                        "from numba import cuda\n" + VECTOR_ADD.format(tag="launch")
                                        + textwrap.dedent(f'''
            a = cuda.to_device(np.ones(256, np.float32)); c = cuda.device_array_like(a)
            for _ in range(200): add_kernel_launch[1, 256](a, a, c)
            cuda.synchronize(); best = 1e9
            for _ in range(3):
                t = time.perf_counter()
                for _ in range({n_launch}): add_kernel_launch[1, 256](a, a, c)
                cuda.synchronize(); best = min(best, (time.perf_counter() - t) / {n_launch})
            print(best * 1e6)''')))
    reference = source_module_launch or core_launch
    rows.append(("launch overhead, kernel[1, 256](a, a, c)", f"{ours_launch:.2f} us",
                 f"{numba_launch:.2f} us" if numba_launch else numba_missing or "GPU only",
                 f"{ours_launch / numba_launch:.2f}x (target <= 0.3x)" if numba_launch else "-"))
    rows.append(("  vs SourceModule launch" if source_module_launch else
                 "  vs the core's launch of the same kernel", f"{reference:.2f} us",
                 "-", f"{ours_launch / reference:.2f}x (target <= 1.2x)"))
    if source_module_launch:
        rows.append(("  JitKernel.launch of the same kernel (no dispatch)",
                      f"{core_launch:.2f} us", "-", f"{ours_launch / core_launch:.2f}x"))

    # ---- tutorial matmul: Python vs CUDA C ------------------------------------------------
    size = args.size or (512 if backend == "cpu" else 2048)
    iters = 3 if backend == "cpu" else 50
    for name, ms, note in matmul_rows(kernels, size, iters):
        rows.append((name, ms, "-", note))

    # ---- P9: CPU backend vs Numba's simulator ---------------------------------------------
    if backend == "cpu":
        matmul_code = SIMULATOR_MATMUL.format(import_line="from cudakit import cuda",
                                              matmul=MATMUL)
        ours_sim = float(run_python(matmul_code))
        if numba_missing is None:
            sim = float(run_python(NUMBA_PRELUDE + SIMULATOR_MATMUL.format(
                import_line="from numba import cuda", matmul=MATMUL),
                {"NUMBA_ENABLE_CUDASIM": "1"}, timeout=1200))
            rows.append(("P9 64x64 tutorial matmul, CPU backend vs simulator",
                         f"{ours_sim:.2f} ms", f"{sim:.1f} ms",
                         f"{sim / ours_sim:.0f}x faster (target >= 1000x)"))
        else:
            rows.append(("P9 64x64 tutorial matmul, CPU backend", f"{ours_sim:.2f} ms",
                         numba_missing, "-"))

    widths = [max(len(r[i]) for r in rows + [("what", "cudakit", "peer", "ratio")])
              for i in range(4)]
    header = ("what", "cudakit", "peer", "ratio")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    print("\ntutorial matmul, the k loop of each variant:")
    print("\n".join(loop_counts(kernels)))


if __name__ == "__main__":
    main()
