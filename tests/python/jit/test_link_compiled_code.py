"""@cuda.jit(link=[...]) and declare_device(link=...) of compiled code
(.ptx, .cubin, .fatbin, .o, .a, .ltoir and numba-cuda's in-memory
PTXSource, Cubin, ... objects): the kernel is compiled relocatable and
linked with them by the driver's linker on a GPU (a scripted libcuda shows
the inputs it gets, in a child process; a link holding LTO-IR goes through
the real nvJitLink there); the CPU backend refuses compiled GPU code by
name. The `gpu` tests run kernels linked with NVRTC's PTX, a cubin and
LTO-IR against numpy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cudakit.compiler as nvrtc
import cudakit.driver as drv
from cudakit import cuda
from cudakit.cuda import types

ROOT = Path(__file__).resolve().parents[3]
RNG = np.random.default_rng(20)

# Numba's ABI: the result through the first pointer, 0 returned.
TRIPLE_PLUS_CU = r'''
extern "C" __device__ int triple_plus(int* out, int x, int y) { *out = 3 * x + y; return 0; }
'''


def _compiled(tmp_path: Path, target: str, suffix: str) -> Path:
    if target == "ltoir":
        from cudakit.cuda.compiler import _nvrtc
        code = _nvrtc(TRIPLE_PLUS_CU, (9, 0), "ltoir", False, False, False)
    else:
        code = nvrtc.compile(TRIPLE_PLUS_CU, options=["-rdc=true"],
                             arch="compute_90" if target == "ptx" else "sm_90",
                             target=target, no_extern_c=True)
    path = tmp_path / f"triple_plus{suffix}"
    path.write_bytes(code if isinstance(code, bytes) else code.encode())
    return path


def _kernel(link):
    triple_plus = cuda.declare_device("triple_plus", types.int32(types.int32, types.int32))

    @cuda.jit(link=link)
    def apply(out, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = triple_plus(x[i], y[i])

    return apply


def test_linkable_code_objects_are_numba_cudas():
    assert {"PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR",
            "LinkableCode"} <= set(dir(cuda))
    ptx = cuda.PTXSource(b".version 9.0", name="p")
    assert ptx.kind == "ptx" and ptx.data == b".version 9.0" and ptx.name == "p"
    assert "PTXSource p" in ptx and cuda.LTOIR(b"x").name == "<unnamed-ltoir>"
    assert cuda.CUSource("int x;").data == "int x;"
    with pytest.raises(TypeError, match="is the base"):
        cuda.LinkableCode(b"x")
    with pytest.raises(ValueError, match="empty"):
        cuda.Cubin(b"")
    with pytest.raises(drv.NotSupported, match="callback"):
        cuda.Object(b"x", setup_callback=print)


def test_from_path_picks_the_kind_by_suffix(tmp_path):
    for suffix, cls in [(".ptx", cuda.PTXSource), (".cubin", cuda.Cubin), (".a", cuda.Archive),
                        (".o", cuda.Object), (".fatbin", cuda.Fatbin), (".ltoir", cuda.LTOIR),
                        (".cu", cuda.CUSource)]:
        path = tmp_path / f"code{suffix}"
        path.write_bytes(b"data")
        code = cuda.LinkableCode.from_path(str(path))
        assert type(code) is cls and code.name == "code"
        assert cuda.LinkableCode.from_path_or_obj(code) is code
    with pytest.raises(ValueError, match="unknown suffix"):
        cuda.LinkableCode.from_path(str(tmp_path / "code.txt"))


@pytest.mark.skipif(drv.backend() != "cpu", reason="the CPU backend's refusal")
def test_cpu_backend_refuses_compiled_code_naming_the_file(tmp_path):
    ptx = _compiled(tmp_path, "ptx", ".ptx")
    kernel = _kernel([str(ptx)])  # (defining it is fine: the refusal comes at compile time)
    with pytest.raises(drv.NotSupported, match=r"triple_plus\.ptx.*CPU backend cannot run"):
        kernel[1, 1](np.zeros(1, np.int32), np.ones(1, np.int32), np.ones(1, np.int32))
    in_memory = _kernel([cuda.Cubin(b"\x7fELF", name="mine")])
    with pytest.raises(drv.NotSupported, match="Cubin mine"):
        in_memory[1, 1](np.zeros(1, np.int32), np.ones(1, np.int32), np.ones(1, np.int32))


def test_linked_ptx_of_compile_all_is_returned_as_it_is(tmp_path):
    ptx = _compiled(tmp_path, "ptx", ".ptx")
    triple_plus = cuda.declare_device("triple_plus", types.int32(types.int32, types.int32),
                                      link=[str(ptx)])

    def twice(x):
        return triple_plus(x, x)

    codes, _ = cuda.compile_all(twice, (types.int32,), output="ptx")
    assert len(codes) == 2 and codes[1] == ptx.read_text()
    with pytest.raises(ValueError, match="not 'ltoir'"):
        cuda.compile_all(twice, (types.int32,), output="ltoir")


def _fake_driver() -> Path:
    for candidate in [os.environ.get("CUDAKIT_FAKE_LIBCUDA", ""),
                      str(ROOT / "build" / "lib" / "libcuda_fake_driver.so")]:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    pytest.skip("the scripted libcuda (cuda_fake_driver, built with the C++ tests) is not built; "
                "set CUDAKIT_FAKE_LIBCUDA to it")


def test_the_drivers_linker_gets_the_kernel_and_each_input(tmp_path):
    """With a scripted libcuda: the translated kernel goes in as relocatable
    source, each file by path, each in-memory object as data, with its
    driver input type. With LTO-IR the link is nvJitLink's (a real one,
    where it is installed): it links the kernel's PTX with the LTO-IR."""
    ptx = _compiled(tmp_path, "ptx", ".ptx")
    ltoir = _compiled(tmp_path, "ltoir", ".ltoir")
    program = f"""
        import numpy as np
        import cudakit._linker as linker_module
        from cudakit import cuda
        from cudakit.cuda import types
        inputs = []

        class Recording(linker_module.Linker):
            def _add_source(self, source, **options):
                inputs.append(("source", options["extra_flags"], "triple_plus(" in source))
                super()._add_source(source, **options)
            def add_data(self, data, input_type, name="unknown"):
                inputs.append(("data", int(input_type), name))
                return super().add_data(data, input_type, name)
            def add_file(self, filename, input_type):
                inputs.append(("file", int(input_type), filename))
                return super().add_file(filename, input_type)
            def link_module(self):
                module = super().link_module()
                inputs.append(("log", self.info_log))
                return module

        linker_module.Linker = Recording
        triple_plus = cuda.declare_device("triple_plus", types.int32(types.int32, types.int32))
        other = cuda.PTXSource(open({str(ptx)!r}).read().replace("triple_plus", "other"),
                               name="other")
        def kernel(out, x, y):
            out[0] = triple_plus(x[0], y[0])
        args = [np.zeros(1, np.int32)] * 3
        try:
            cuda.jit(link=[{str(ptx)!r}, other])(kernel)[1, 1](*args)
        except Exception as error:  # the scripted module has its own kernels only
            print("AFTER LINK", "no such kernel" in str(error))
        print("INPUTS", inputs)
        inputs.clear()
        lto = cuda.LTOIR(open({str(ltoir)!r}, "rb").read(), name="dev")
        try:
            cuda.jit(link=[lto])(kernel)[1, 1](*args)
        except Exception as error:
            print("LTO", type(error).__name__, str(error).replace(chr(10), " | ")[:600])
        print("LTO INPUTS", inputs)
        try:
            cuda.jit(link=[cuda.LTOIR(b"not LTO-IR", name="bad")])(kernel)[1, 1](*args)
        except Exception as error:
            print("BAD LTO", type(error).__name__, "'bad' (ltoir)" in str(error))
    """
    env = dict(os.environ, CUDAKIT_LIBCUDA=str(_fake_driver()), CUDAKIT_BACKEND="cuda",
               CUDAKIT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(program)], env=env,
                            capture_output=True, text=True, timeout=300)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "AFTER LINK True" in out, out
    assert (f"INPUTS [('source', ['-rdc=true'], True), ('file', 1, {str(ptx)!r}), "
            "('data', 1, 'other'), ('log', 'info    : linked 3 inputs')]") in out, out
    assert "LTO INPUTS [('source', ['-rdc=true'], True), ('data', 5, 'dev')" in out, out
    if "LibraryNotFound" in out:
        assert "CUDAKIT_NVJITLINK" in out, out  # no nvJitLink here: the fix is named
        return
    # Linked (the nvJitLink log has no undefined triple_plus): only the lookup of the
    # kernel in the scripted module fails.
    assert "no such kernel" in out.split("LTO ", 1)[1], out
    assert "BAD LTO RuntimeError True" in out, out  # (cudakit.driver.RuntimeError: CudaError)


@pytest.mark.gpu
@pytest.mark.parametrize("target, suffix", [("ptx", ".ptx"), ("cubin", ".cubin")])
def test_kernel_linked_with_compiled_code_runs(tmp_path, target, suffix):
    path = _compiled(tmp_path, target, suffix)
    n = 1000  # not a multiple of the block
    x = RNG.integers(-1000, 1000, n).astype(np.int32)
    y = RNG.integers(-1000, 1000, n).astype(np.int32)
    for link in ([str(path)], [cuda.LinkableCode.from_path(str(path))]):
        out = np.zeros(n, np.int32)
        _kernel(link)[(n + 127) // 128, 128](out, x, y)
        np.testing.assert_array_equal(out, 3 * x + y)


@pytest.mark.gpu
def test_numba_cudas_jitlink_ptx_links(tmp_path):
    """A hand-written PTX function (numba-cuda's test data kind)."""
    path = _compiled(tmp_path, "ptx", ".ptx")
    kernel = _kernel(cuda.PTXSource(path.read_bytes(), name="triple_plus"))
    out = np.zeros(3, np.int32)
    kernel[1, 32](out, np.array([1, 2, 3], np.int32), np.array([4, 5, 6], np.int32))
    np.testing.assert_array_equal(out, [7, 11, 15])


@pytest.mark.gpu
def test_kernel_linked_with_lto_ir_runs(tmp_path):
    """LTO-IR (NVRTC's -dlto) of the device function, linked by nvJitLink."""
    path = _compiled(tmp_path, "ltoir", ".ltoir")
    n = 999
    x = RNG.integers(-1000, 1000, n).astype(np.int32)
    y = RNG.integers(-1000, 1000, n).astype(np.int32)
    for link in ([str(path)], [cuda.LTOIR(path.read_bytes(), name="triple_plus")]):
        out = np.zeros(n, np.int32)
        _kernel(link)[(n + 127) // 128, 128](out, x, y)
        np.testing.assert_array_equal(out, 3 * x + y)
