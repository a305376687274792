"""`numba.cuda.compiler`: a Python function compiled to PTX or LTO-IR
without running it (`compile`, `compile_ptx`, `compile_all` and their
`_for_current_device` forms), with numba-cuda's signatures, defaults, return
values and errors.

The function is translated to CUDA C++ as @cuda.jit translates it, and NVRTC
compiles that (relocatable, -rdc=true) for the compute capability asked for;
NVRTC needs no GPU, so this works on the CPU backend too. The code is
NVRTC's: PTX that ptxas accepts, or LTO-IR (-dlto) for nvJitLink. A kernel
is an `extern "C" __global__` function; a device function is exported as a
visible function by a wrapper in the ABI asked for (core/callconv.py).
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

from . import config
from .api import launch_bounds_option
from .core.callconv import CUDACABICallConv, CUDACallConv
from .translate import types as t
from .translate.errors import TypingError
from .translate.parse import parse_function
from .translate.program import Program
from .translate.typing import translate_device, translate_kernel

# The CPU backend has no GPU to take a compute capability from: PTX for an
# H100-class GPU, as inspect_asm gives there.
_CC_WITHOUT_GPU = (9, 0)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")


def _signature_of(sig: Any) -> t.Signature:
    from .api import _signature
    if isinstance(sig, list):
        sig = tuple(sig)
    signature = _signature(sig)
    if signature.return_type is not None and not isinstance(signature.return_type, t.Type):
        signature = t.Signature(t.none, signature.args)
    return signature


def _default_cc(cc: Any) -> Any:
    """`cc`, else config.CUDA_DEFAULT_PTX_CC raised to the lowest NVRTC supports."""
    if cc:
        return cc
    from .cudadrv import nvrtc
    return max(tuple(config.CUDA_DEFAULT_PTX_CC), nvrtc.get_lowest_supported_cc())


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


def _export_name(py_func: Callable[..., Any], abi: str, abi_info: dict) -> str:
    name = abi_info.get("abi_name") if abi == "c" else None
    if name is not None:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"compile: abi_info['abi_name'] must be a C identifier, got "
                             f"{name!r}")
        return name
    name = re.sub(r"\W", "_", py_func.__name__)  # "<lambda>" -> "_lambda_"
    return name if _IDENTIFIER.match(name) else "f_" + name


def _line_directive(py_func: Callable[..., Any]) -> str:
    """#line of the Python function's def: the wrapper's code (and its debug
    information) is attributed to it."""
    code = py_func.__code__
    filename = os.path.abspath(code.co_filename).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {code.co_firstlineno} "{filename}"'


def _device_source(parsed: Any, signature: t.Signature, options: dict[str, Any], abi: str,
                   abi_info: dict, forceinline: bool) -> tuple[Program, str, t.Type]:
    program = Program(options)
    export = _export_name(parsed.py_func, abi, abi_info)
    program.names.add(export)  # the translated function is named apart from it
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
    call_conv = CUDACABICallConv() if abi == "c" else CUDACallConv()
    wrapper = call_conv.wrapper(export, result_ctype, params, call)
    if forceinline:  # inlined into its callers at the LTO link
        wrapper = wrapper.replace("__device__", "__device__ __forceinline__", 1)
    return program, program.source(_line_directive(parsed.py_func) + "\n" + wrapper), return_type


def _translate(pyfunc: Callable[..., Any], sig: Any, debug: bool | None, lineinfo: bool,
               device: bool, fastmath: bool, abi: str, abi_info: dict | None,
               forceinline: bool, launch_bounds: Any,
               link_separately: bool) -> tuple[str, t.Type, tuple[str, ...]]:
    """(CUDA C++ source, return type, linked files) of numba-cuda's
    _compile_pyfunc_with_fixup, with its checks in its order."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")
    if abi_info is not None and not isinstance(abi_info, dict):
        raise TypeError(f"compile: abi_info must be a dict (such as {{'abi_name': 'f'}}), got "
                        f"{type(abi_info).__name__}")
    if launch_bounds is not None and device:
        raise ValueError("compile: launch_bounds apply to kernels (device=False), not to "
                         "device functions")
    py_func = getattr(pyfunc, "py_func", pyfunc)
    signature = _signature_of(sig)
    options: dict[str, Any] = {"debug": bool(debug), "lineinfo": bool(lineinfo),
                               "fastmath": bool(fastmath), "link_separately": link_separately}
    parsed = parse_function(py_func)
    if device:
        program, source, return_type = _device_source(parsed, signature, options, abi,
                                                      abi_info or {}, forceinline)
        return source, return_type, tuple(program.linked_files)
    if signature.return_type not in (None, t.none):
        raise TypeError("CUDA kernel must have void return type.")
    bounds = launch_bounds_option(launch_bounds)
    if bounds:
        options["launch_bounds"] = bounds
    translation = translate_kernel(parsed, tuple(signature.args), options)
    return translation.source, t.none, translation.linked_files


def _check_output(output: str, forceinline: bool, debug: bool | None, opt: bool | None) -> None:
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if debug and opt is not False:
        from .core.errors import warn_debug_with_opt
        warn_debug_with_opt(stacklevel=3)  # the caller of compile()


def _nvrtc(source: str, cc: Any, output: str, debug: bool | None, lineinfo: bool,
           fastmath: bool) -> str | bytes:
    """NVRTC's PTX (str) or LTO-IR (bytes) of `source`, relocatable (-rdc):
    an exported device function stays, and calls of linked ones resolve at
    the link."""
    from .. import _core
    from .cudadrv import nvrtc
    if output == "ltoir" and not nvrtc.makes_ltoir():
        raise NotImplementedError(
            f"compile: output='ltoir' needs nvrtcGetLTOIR, which the loaded NVRTC "
            f"{'.'.join(map(str, nvrtc._get_nvrtc_version()))} lacks: use CUDA 12.0 or newer's "
            "NVRTC (CUDAKIT_NVRTC), or output='ptx'")
    image, _format, _arch, _log = _core._compile_only(
        source, nvrtc.target_arch(cc), "c++17", [], [], ["-rdc=true"], bool(debug),
        bool(lineinfo), bool(fastmath), True, output == "ptx", output == "ltoir")
    if output == "ltoir":
        return bytes(image)
    return bytes(image).rstrip(b"\0").decode()


def _nvrtc_ptx(source: str, arch: str, device: bool, options: dict[str, Any]) -> str:
    """PTX of a translated kernel for `arch` ("compute_90"): inspect_asm's."""
    from .. import compiler as nvrtc
    flags = ["-rdc=true"] if device else []
    if options["fastmath"]:
        flags.append("--use_fast_math")
    if options["debug"]:
        flags.append("-G")
    elif options["lineinfo"]:
        flags.append("-lineinfo")
    ptx = nvrtc.compile(source, options=flags, arch=arch, target="ptx", no_extern_c=True)
    return ptx.decode() if isinstance(ptx, bytes) else str(ptx)


def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
            lineinfo: bool = False, device: bool = True, fastmath: bool = False,
            cc: Any = None, opt: bool | None = None, abi: str = "c",
            abi_info: dict | None = None, output: str = "ptx", forceinline: bool = False,
            launch_bounds: Any = None) -> tuple[str | bytes, t.Type]:
    """(code, return type) of `pyfunc` compiled for `sig`: a tuple of
    argument types (the return type is inferred) or a signature whose return
    type the result is converted to. device=True: a device function exported
    with abi "c" (`ret name(args)`, named abi_info["abi_name"] or as the
    function) or "numba" (`int name(ret *result, args)`); device=False: a
    kernel. output "ptx" (str) or "ltoir" (bytes, NVRTC's -dlto). cc:
    (major, minor[, 'a' | 'f']), default config.CUDA_DEFAULT_PTX_CC. debug
    compiles with -G (unoptimized, so opt is implied off), lineinfo with
    -lineinfo, fastmath with --use_fast_math. CUDA C/C++ the function links
    (declare_device(link=...)) is part of the one code returned."""
    _check_output(output, forceinline, debug, opt)
    source, return_type, _linked = _translate(pyfunc, sig, debug, lineinfo, device, fastmath,
                                              abi, abi_info, forceinline, launch_bounds, False)
    code = _nvrtc(source, _default_cc(cc), output, debug, lineinfo, fastmath)
    return code, return_type


def compile_all(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                lineinfo: bool = False, device: bool = True, fastmath: bool = False,
                cc: Any = None, opt: bool | None = None, abi: str = "c",
                abi_info: dict | None = None, output: str = "ltoir", forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[list[str | bytes], t.Type]:
    """compile(), as a list: the function's code first, then the code of each
    CUDA C/C++ source it links (declare_device(link=...)), compiled by NVRTC
    on its own, to be linked with it. output defaults to "ltoir"."""
    _check_output(output, forceinline, debug, opt)
    cc = _default_cc(cc)
    source, return_type, linked = _translate(pyfunc, sig, debug, lineinfo, device, fastmath,
                                             abi, abi_info, forceinline, launch_bounds, True)
    codes = [_nvrtc(source, cc, output, debug, lineinfo, fastmath)]
    from .foreign import linked_source
    from .linked_code import LinkableCode, compiled_kind
    for path in linked:
        kind = compiled_kind(path)
        if not kind:
            codes.append(_nvrtc(linked_source(path), cc, output, debug, lineinfo, False))
            continue
        if kind != output:  # compiled code is returned as it is, in the kind asked for
            raise ValueError(f"compile_all(output={output!r}): the function links {path}, "
                             f"compiled code of kind {kind!r}, which is not {output!r}")
        if isinstance(path, LinkableCode):
            data = path.raw
        else:
            with open(path, "rb") as handle:
                data = handle.read()
        codes.append(data.decode() if output == "ptx" else data)
    return codes, return_type


def _current_cc() -> tuple[int, int]:
    from .api import get_current_device
    cc = tuple(get_current_device().compute_capability)
    return cc if cc > (0, 0) else _CC_WITHOUT_GPU  # type: ignore[return-value]


def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool | None = None,
                               lineinfo: bool = False, device: bool = True,
                               fastmath: bool = False, opt: bool | None = None,
                               abi: str = "c", abi_info: dict | None = None,
                               output: str = "ptx", forceinline: bool = False,
                               launch_bounds: Any = None) -> tuple[str | bytes, t.Type]:
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
    """compile() to PTX with numba-cuda's defaults for it: a kernel, Numba's ABI."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,  # type: ignore
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


__all__ = ["compile", "compile_all", "compile_for_current_device", "compile_ptx",
           "compile_ptx_for_current_device"]
