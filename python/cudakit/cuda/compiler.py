"""`numba.cuda.compiler`: a Python function compiled to PTX without running
it (`compile_ptx`, `compile`, and their `_for_current_device` forms).

The function is translated to CUDA C++ as @cuda.jit translates it, and NVRTC
compiles that to PTX for the compute capability asked for; NVRTC needs no
GPU, so this works on the CPU backend too. A kernel is an `extern "C"
__global__` function; a device function (device=True) is exported with
Numba's ABI (`extern "C" __device__ int name(ret *result, args...)`,
returning 0) or the C ABI (`ret name(args...)`, abi="c"), so that the PTX
holds it as a visible function.
"""

from __future__ import annotations

from typing import Any, Callable

from .translate import types as t
from .translate.errors import TypingError
from .translate.parse import parse_function
from .translate.program import Program
from .translate.typing import translate_device, translate_kernel

# NVRTC of CUDA 12/13 compiles for compute_75 and newer; Numba's default of
# 5.0 is raised to that.
_LOWEST_CC = (7, 5)
# The CPU backend has no GPU to take a compute capability from: PTX for an
# H100-class GPU, as inspect_asm gives there.
_CC_WITHOUT_GPU = (9, 0)


def _signature_of(sig: Any) -> t.Signature:
    from .api import _signature
    if isinstance(sig, list):
        sig = tuple(sig)
    signature = _signature(sig)
    if signature.return_type is not None and not isinstance(signature.return_type, t.Type):
        signature = t.Signature(t.none, signature.args)
    return signature


def _cc_arch(cc: Any) -> str:
    if cc is None:
        cc = _LOWEST_CC
    try:
        major, minor = (int(part) for part in cc)
    except (TypeError, ValueError):
        raise ValueError(f"cc must be a compute capability (major, minor) such as (8, 0), got "
                         f"{cc!r}") from None
    if (major, minor) < _LOWEST_CC:
        major, minor = _LOWEST_CC
    return f"compute_{major}{minor}"


def _param_ctype(program: Program, ty: t.Type) -> str:
    if isinstance(ty, t.Scalar):
        return ty.ctype
    if isinstance(ty, t.ArrayT):
        program.need_record(ty)
        return ty.view_ctype
    if isinstance(ty, t.RecordT):
        program.need_record(ty)
        return f"{ty.ctype}*"
    if isinstance(ty, t.PointerT):
        return f"{ty.dtype.ctype}*"
    if isinstance(ty, t.TupleT) and all(isinstance(i, t.Scalar) for i in ty.items):
        return program.tuple_struct(ty)
    if isinstance(ty, t.NoneT):
        return "void"
    raise TypingError(f"compile: a device function exported to PTX cannot take or return "
                      f"{ty}")


def _device_source(parsed: Any, signature: t.Signature, options: dict[str, Any], abi: str,
                   abi_info: dict | None) -> tuple[str, t.Type]:
    program = Program(options)
    arg_types = tuple(signature.args)
    name, inferred = translate_device(parsed, arg_types, program, ("compile", arg_types),
                                      parsed.where, parsed.tree)
    return_type = signature.return_type if signature.return_type is not None else inferred
    if return_type != inferred and not (isinstance(return_type, t.Scalar)
                                        and isinstance(inferred, t.Scalar)):
        raise TypingError(f"compile: {parsed.py_func.__name__} returns {inferred}, which "
                          f"cannot be converted to the signature's {return_type}",
                          parsed.where, parsed.tree)
    params = [f"{_param_ctype(program, a)} ck_a{i}" for i, a in enumerate(arg_types)
              if not isinstance(a, t.ConstT)]
    call_args = ", ".join(f"ck_a{i}" for i, a in enumerate(arg_types)
                          if not isinstance(a, t.ConstT))
    call = f"{name}({call_args})"
    result_ctype = _param_ctype(program, return_type)
    if isinstance(return_type, t.Scalar) and return_type != inferred:
        call = f"({result_ctype})({call})"
    if abi == "c":
        export = (abi_info or {}).get("abi_name") or parsed.py_func.__name__
        body = (f"{call};" if isinstance(return_type, t.NoneT) else f"return {call};")
        wrapper = (f'extern "C" __device__ {result_ctype} {export}({", ".join(params)}) '
                   f"{{ {body} }}")
    else:
        export = parsed.py_func.__name__
        if isinstance(return_type, t.NoneT):
            all_params = ", ".join(params)
            body = f"{call}; return 0;"
        else:
            all_params = ", ".join([f"{result_ctype}* ck_result"] + params)
            body = f"*ck_result = {call}; return 0;"
        wrapper = f'extern "C" __device__ int {export}({all_params}) {{ {body} }}'
    return program.source(wrapper), return_type


def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
            lineinfo: bool = False, device: bool = True, fastmath: bool = False,
            cc: Any = None, opt: bool | None = None, abi: str = "c",
            abi_info: dict | None = None, output: str = "ptx", forceinline: bool = False,
            launch_bounds: Any = None) -> tuple[str, t.Type]:
    """(PTX, return type) of `pyfunc` compiled for the argument types of
    `sig` (a tuple of types, or a signature with a return type the result is
    converted to). device=True (the default here) compiles a device
    function, else a kernel. cc: the compute capability (default 7.5, the
    lowest NVRTC targets)."""
    if output != "ptx":
        raise NotImplementedError(f"compile: output={output!r} is not offered: cudakit "
                                  "compiles kernels from CUDA C++ source, to PTX (output='ptx')")
    if abi not in ("c", "numba"):
        raise NotImplementedError(f"compile: abi must be 'c' or 'numba', got {abi!r}")
    if abi == "c" and not device:
        raise NotImplementedError("compile: the C ABI is for device functions only "
                                  "(device=True), as in Numba")
    if forceinline:
        raise ValueError("compile: forceinline applies to LTO-IR output only")
    py_func = getattr(pyfunc, "py_func", pyfunc)
    signature = _signature_of(sig)
    options = {"debug": bool(debug), "lineinfo": bool(lineinfo), "fastmath": bool(fastmath)}
    if launch_bounds is not None:
        if device:
            raise ValueError("compile: launch_bounds apply to kernels (device=False), not to "
                             "device functions")
        from .api import launch_bounds_option
        options["launch_bounds"] = launch_bounds_option(launch_bounds)
    parsed = parse_function(py_func)
    if device:
        source, return_type = _device_source(parsed, signature, options, abi, abi_info)
    else:
        if signature.return_type not in (None, t.none):
            raise TypeError(f"compile: a kernel returns nothing (void); the signature says "
                            f"{signature.return_type}")
        source = translate_kernel(parsed, tuple(signature.args), options).source
        return_type = t.none
    return _nvrtc_ptx(source, _cc_arch(cc), device, options), return_type


def _nvrtc_ptx(source: str, arch: str, device: bool, options: dict[str, Any]) -> str:
    from .. import compiler as nvrtc
    flags = ["-rdc=true"] if device else []  # keep the exported device function
    if options["fastmath"]:
        flags.append("--use_fast_math")
    if options["debug"]:
        flags.append("-G")
    elif options["lineinfo"]:
        flags.append("-lineinfo")
    ptx = nvrtc.compile(source, options=flags, arch=arch, target="ptx", no_extern_c=True)
    return ptx.decode() if isinstance(ptx, bytes) else str(ptx)


def _current_cc() -> tuple[int, int]:
    from .api import get_current_device
    cc = tuple(get_current_device().compute_capability)
    return cc if cc > (0, 0) else _CC_WITHOUT_GPU  # type: ignore[return-value]


def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                               lineinfo: bool = False, device: bool = True,
                               fastmath: bool = False, opt: bool | None = None,
                               abi: str = "c", abi_info: dict | None = None,
                               output: str = "ptx", forceinline: bool = False,
                               launch_bounds: Any = None) -> tuple[str, t.Type]:
    """compile() for the current GPU's compute capability (9.0 on the CPU
    backend, which has none)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                   fastmath=fastmath, cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info,
                   output=output, forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                lineinfo: bool = False, device: bool = False, fastmath: bool = False,
                cc: Any = None, opt: bool | None = None, abi: str = "numba",
                abi_info: dict | None = None, forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[str, t.Type]:
    """compile() to PTX with Numba's defaults for it: a kernel, Numba's ABI."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                   fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                   output="ptx", forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: Any,
                                   debug: bool | None = None, lineinfo: bool = False,
                                   device: bool = False, fastmath: bool = False,
                                   opt: bool | None = None, abi: str = "numba",
                                   abi_info: dict | None = None, forceinline: bool = False,
                                   launch_bounds: Any = None) -> tuple[str, t.Type]:
    """compile_ptx() for the current GPU's compute capability."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=_current_cc(), opt=opt, abi=abi,
                       abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)


__all__ = ["compile", "compile_for_current_device", "compile_ptx",
           "compile_ptx_for_current_device"]
