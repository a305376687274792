"""PyCUDA's ``pycuda.compiler`` on cudakit: SourceModule compiles with NVRTC.

PyCUDA runs nvcc in a subprocess (350-640 ms a cold compile); cudakit
compiles in-process with NVRTC (or the host compiler on the CPU backend)
through its compile cache, in memory and on disk. nvcc's options are mapped
to their NVRTC equivalents; one NVRTC cannot take is an error that names it.
"""

from __future__ import annotations

import abc
import os
import shlex
import sys
import tempfile
import warnings
from typing import Any, Sequence

from . import _core
from ._kernel_macros import expand_kernel_macros
from ._core import ArgumentError, CompileError, NotSupported  # noqa: F401
from ._source_lines import source_line_directive
from ._textures import texture_compile_error, uses_texture_references

__all__ = ["SourceModule", "DynamicModule", "DynamicSourceModule", "DEFAULT_NVCC_FLAGS",
           "compile", "CompileError", "get_nvcc_version", "CudaModule", "preprocess_source", "compile_plain"]

DEFAULT_NVCC_FLAGS: list[str] = []

_nvcc_versions: dict[str, str] = {}


def preprocess_source(source: str, options: Sequence[str] | None, nvcc: str = "nvcc") -> str:
    """PyCUDA's: ``source`` run through ``nvcc --preprocess`` (with
    ``options``). This one needs nvcc (cudakit itself compiles with NVRTC);
    without it, a CompileError says so."""
    import os
    import subprocess
    import tempfile

    if not isinstance(source, str):
        raise TypeError(f"preprocess_source: source must be a str, got {type(source).__name__}")
    options = _option_list(options, "preprocess_source")
    handle, path = tempfile.mkstemp(suffix=".cu")
    try:
        with os.fdopen(handle, "w") as f:
            f.write(source)
        command = [nvcc, "--preprocess", *options, path, "--compiler-options", "-P"]
        try:
            run = subprocess.run(command, capture_output=True, timeout=600)
        except OSError as e:
            raise CompileError(f"preprocess_source: cannot run {nvcc!r} ({e}); it needs nvcc "
                               "(the CUDA toolkit's bin/ on PATH, or nvcc=<path>)") from None
        if run.returncode != 0:
            raise CompileError(f"preprocess_source: nvcc preprocessing failed:\n"
                               f"{run.stderr.decode('utf-8', 'replace')}")
        return run.stdout.decode("utf-8", "replace")
    finally:
        os.unlink(path)


def get_nvcc_version(nvcc: str = "nvcc") -> str:
    """``nvcc --version``'s text, as PyCUDA's. cudakit compiles with NVRTC
    and does not need nvcc; when ``nvcc`` cannot be run (not on PATH, or it
    fails) this warns "NVCC version could not be determined." and returns
    PyCUDA's stand-in text "nvcc unknown version". Memoized per ``nvcc``."""
    import subprocess

    if not isinstance(nvcc, str) or not nvcc:
        raise TypeError(f"get_nvcc_version: nvcc must be the nvcc command as a str, got "
                        f"{nvcc!r}")
    if nvcc not in _nvcc_versions:
        try:
            run = subprocess.run([nvcc, "--version"], capture_output=True, timeout=60)
            text = run.stdout.decode("utf-8", "replace") if run.returncode == 0 else ""
        except (OSError, subprocess.SubprocessError):
            text = ""
        if not text:
            warnings.warn(f"NVCC version could not be determined ({nvcc!r} --version did not "
                          "run); cudakit compiles with NVRTC and does not need nvcc",
                          stacklevel=2)
            text = "nvcc unknown version"
        _nvcc_versions[nvcc] = text
    return _nvcc_versions[nvcc]

# Device-code options NVRTC takes as nvcc spells them; passed to NVRTC
# as they are on a GPU, dropped on the CPU backend (they only steer GPU code).
_PASSED_PREFIXES = (
    "--maxrregcount", "-maxrregcount", "--ftz", "-ftz", "--prec-div", "-prec-div",
    "--prec-sqrt", "-prec-sqrt", "--fmad", "-fmad", "--restrict", "-restrict",
    "--extra-device-vectorization", "-extra-device-vectorization", "-rdc", "--relocatable-device-code",
    "--dopt", "-dopt", "-w", "--disable-warnings",
)
# Host-side optimisation levels: device code is optimised anyway.
_IGNORED = ("-O0", "-O1", "-O2", "-O3", "--optimize")
# nvcc's "show the registers and shared memory each kernel uses" (ptxas -v,
# the tutorial's advice for a launch that runs out of resources). NVRTC runs
# no ptxas, so the option is accepted and the warning says where the same
# figures are.
_PTXAS_VERBOSE = ("--ptxas-options=-v", "--ptxas-options=--verbose", "-Xptxas=-v",
                  "-Xptxas=--verbose", "--resource-usage", "-res-usage")
_PTXAS_PREFIXES = ("--ptxas-options", "-Xptxas")
_PTXAS_VERBOSE_WARNING = (
    "SourceModule: {option!r} asks ptxas for each kernel's resource usage; cudakit compiles "
    "with NVRTC and runs no ptxas, so nothing is printed. The same figures are attributes of "
    "each kernel: f = mod.get_function(name); f.num_regs, f.shared_size_bytes, "
    "f.local_size_bytes (spilled registers), f.max_threads_per_block")


class _Options:
    def __init__(self) -> None:
        self.arch = ""
        self.std = ""
        self.defines: list[tuple[str, str]] = []
        self.include_dirs: list[str] = []
        self.extra_flags: list[str] = []
        self.debug = False
        self.line_info = False
        self.fast_math = False
        # nvcc's -lNAME / --library=NAME: libraries to link (DynamicModule links
        # them; a SourceModule links nothing).
        self.libraries: list[str] = []


def _option_list(options: Any, use: str) -> list[str]:
    """nvcc options as a list of strings. PyCUDA takes a list; a single
    string is split as a shell splits a command line ("-DN=4 -I'my dir'" is
    ['-DN=4', '-Imy dir']), not read a character at a time."""
    if options is None:
        return []
    if isinstance(options, str):
        try:
            return shlex.split(options)
        except ValueError as error:  # an unclosed quote
            raise ArgumentError(f"{use}: cannot split the options string {options!r}: "
                                f"{error}\n  hint: pass a list of strings, one option each"
                                ) from None
    if isinstance(options, bytes) or not hasattr(options, "__iter__"):
        raise ArgumentError(f"{use}: options must be a list of strings (or one string), got "
                            f"{type(options).__name__}\n  hint: options=['-DN=4', "
                            "'--use_fast_math']")
    out = []
    for option in options:
        if isinstance(option, os.PathLike):
            option = os.fspath(option)
        if not isinstance(option, str):
            raise ArgumentError(f"{use}: each option must be a string, got "
                                f"{type(option).__name__} {option!r} in {options!r}")
        out.append(option)
    return out


def _value(options: Sequence[str], i: int, flag: str) -> tuple[str, int]:
    """The value of `flag` at options[i]: joined (-Ifoo, -arch=x) or the next item."""
    option = options[i]
    for sep in ("=", ""):
        if option.startswith(flag + sep) and len(option) > len(flag + sep):
            return option[len(flag + sep):], i + 1
    if i + 1 >= len(options):
        raise ArgumentError(f"SourceModule: the nvcc option {option!r} needs a value")
    return options[i + 1], i + 2


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel naming the first caller outside this package."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _parse_options(options: Sequence[str], backend: str) -> _Options:
    parsed = _Options()
    i = 0
    while i < len(options):
        option = str(options[i])
        if option.startswith(("-arch", "--gpu-architecture", "-gencode", "--generate-code")):
            if option.startswith(("-gencode", "--generate-code")):
                value, i = _value(options, i, option.split("=")[0])
                # arch=compute_90,code=sm_90: the code's target is what runs.
                parts = dict(p.split("=", 1) for p in value.split(",") if "=" in p)
                value = parts.get("code", parts.get("arch", ""))
            else:
                value, i = _value(options, i, "--gpu-architecture" if option.startswith("--") else "-arch")
            parsed.arch = value
            continue
        if option in ("--use_fast_math", "-use_fast_math", "--use-fast-math"):
            parsed.fast_math = True
        elif option.startswith(("-I", "--include-path")):
            value, i = _value(options, i, "--include-path" if option.startswith("--") else "-I")
            parsed.include_dirs.append(value)
            continue
        elif option.startswith(("-D", "--define-macro")):
            value, i = _value(options, i, "--define-macro" if option.startswith("--") else "-D")
            name, _, definition = value.partition("=")
            parsed.defines.append((name, definition))
            continue
        elif option in ("-G", "--device-debug", "-g"):
            parsed.debug = True
        elif option in ("-lineinfo", "--generate-line-info"):
            parsed.line_info = True
        elif option.startswith(("-std", "--std")):
            value, i = _value(options, i, "--std" if option.startswith("--") else "-std")
            parsed.std = value
            continue
        elif (option.startswith(("-l", "--library"))
              and not option.startswith(("-lineinfo", "--library-path"))):
            value, i = _value(options, i, "--library" if option.startswith("--") else "-l")
            parsed.libraries.append(value)
            continue
        elif option in _IGNORED or option.startswith(("-O", "--optimize")):
            pass
        elif option in _PTXAS_VERBOSE:
            warnings.warn(_PTXAS_VERBOSE_WARNING.format(option=option),
                          stacklevel=_user_stacklevel())
        elif (option in _PTXAS_PREFIXES and i + 1 < len(options)
              and str(options[i + 1]) in ("-v", "--verbose")):
            warnings.warn(_PTXAS_VERBOSE_WARNING.format(option=f"{option} {options[i + 1]}"),
                          stacklevel=_user_stacklevel())
            i += 2
            continue
        elif option.startswith(_PASSED_PREFIXES):
            if backend == "cuda":
                parsed.extra_flags.append(option)
        else:
            raise ArgumentError(
                f"SourceModule: the nvcc option {option!r} cannot be passed to NVRTC "
                "(cudakit compiles in-process with NVRTC, not with nvcc).\n"
                "  hint: NVRTC takes -arch=, --use_fast_math, -I, -D, -G, -lineinfo, -std=, "
                "--maxrregcount, --ftz, --prec-div, --prec-sqrt, --fmad; host-compiler options "
                "(-Xcompiler, -ccbin, ...) have no meaning for run-time compiled device code: "
                "remove the option")
        i += 1
    return parsed


_debug_compile = False


def _set_debug_compile(on: bool) -> None:
    global _debug_compile
    _debug_compile = on


def _arch_number(arch: str) -> int | None:
    """sm_90 / compute_90a / sm_100 -> 90 / 90 / 100 (major * 10 + minor)."""
    digits = "".join(ch for ch in arch.partition("_")[2] if ch.isdigit())
    return int(digits) if digits else None


def _check_arch_runs_on(target: str, device_arch: str) -> None:
    """Code for a newer arch than the device's cannot run on it: PyCUDA's
    "cuModuleLoadDataEx failed" / "no kernel image"; said here, before the
    driver's JIT log, with the arch to use."""
    wanted, have = _arch_number(target), _arch_number(device_arch)
    if wanted is None or have is None or wanted <= have:
        return
    raise ArgumentError(
        f"SourceModule: code for {target} cannot run on this GPU ({device_arch}, compute "
        f"capability {have // 10}.{have % 10}): a GPU runs code built for its own arch or an "
        f"older one.\n"
        f"  hint: compile for {device_arch} or an older arch "
        f"(options=['-arch={device_arch}']), or leave -arch out: cudakit then compiles for the "
        f"GPU it runs on (Device(0).compute_capability() tells which that is)")


def _compile_module(source: str, options: Sequence[str] | None, no_extern_c: bool,
                    arch: str | None, code: str | None, cache_dir: Any,
                    include_dirs: Sequence[str], source_name: str | None = None) -> Any:
    backend = _core._backend()
    flags = list(DEFAULT_NVCC_FLAGS) + _option_list(options, "SourceModule")
    parsed = _parse_options(flags, backend)
    if parsed.libraries:
        raise ArgumentError(
            f"SourceModule: the option -l{parsed.libraries[0]} asks to link a library, and a "
            "SourceModule compiles one source and links nothing.\n"
            "  hint: use DynamicSourceModule(source) for kernels that launch kernels "
            "(it links cudadevrt), or DynamicModule to link several sources and libraries")
    target = arch or parsed.arch or code or ""
    if backend == "cpu":
        target = ""  # the CPU backend compiles for the host, whatever GPU arch was asked
        source = expand_kernel_macros(source)  # its kernel scan does not expand macros
    else:
        if target.startswith("compute_") and code and code.startswith("sm_"):
            target = code
        _check_arch_runs_on(target, _core.Device._current().arch())
        # nvcc's -arch=sm_XX embeds PTX beside the sm_XX code, so the program
        # also runs on newer GPUs; a cubin would not load there. For an arch
        # other than the device's own, compile that PTX (the driver finishes it).
        if target.startswith("sm_") and target != _core.Device._current().arch():
            target = "compute_" + target[3:]
    use_cache = cache_dir is not False
    directory = cache_dir if isinstance(cache_dir, (str, os.PathLike)) else ""
    return _core._compile(
        source, target, parsed.std, parsed.defines,
        [str(d) for d in list(include_dirs) + parsed.include_dirs], parsed.extra_flags,
        parsed.debug or _debug_compile, parsed.line_info or _debug_compile,
        parsed.fast_math, bool(no_extern_c), use_cache, os.fspath(directory) if directory else "",
        source_name or "")


def _compile_marked(directive: str, source: str, options: Sequence[str] | None,
                    no_extern_c: bool, arch: str | None, code: str | None, cache_dir: Any,
                    include_dirs: Sequence[str], source_name: str | None = None) -> Any:
    """Compiles `source` behind the #line `directive`; a compile error is
    reported against the source as written, by compiling it again unmarked
    (the log's line numbers then match the numbered excerpt)."""
    try:
        return _compile_module(directive + source, options, no_extern_c, arch, code, cache_dir,
                               include_dirs, source_name)
    except CompileError:
        if not directive:
            raise
    return _compile_module(source, options, no_extern_c, arch, code, cache_dir, include_dirs,
                           source_name)


def _gpu_target(parsed: Any, arch: str | None, code: str | None, use: str) -> str:
    """The arch a GPU-code compile targets: arch=, -arch in the options, code=,
    or the current device's; refused when it cannot run on the device."""
    target = arch or parsed.arch or code or ""
    if target.startswith("compute_") and code and code.startswith("sm_"):
        target = code
    if _core._backend() == "cpu":
        # NVRTC compiles for a named arch without a GPU; "this GPU's arch" needs one.
        if not target:
            raise NotSupported(
                f"{use}: GPU code (cubin / PTX) for this machine's GPU cannot be made on the "
                "CPU backend: there is no GPU to take the arch from.\n"
                "  hint: name the arch (arch='sm_90'), or run on a GPU; SourceModule compiles "
                "and runs the same source on the CPU backend")
        return target
    device_arch = _core.Device._current().arch()
    target = target or device_arch
    _check_arch_runs_on(target, device_arch)
    return target


def compile(source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None,
            keep: bool = False, no_extern_c: bool = False, arch: str | None = None,
            code: str | None = None, cache_dir: Any = None,
            include_dirs: Sequence[str] = (), target: str = "cubin") -> bytes:
    """PyCUDA's compile(): the source compiled (by NVRTC) to a cubin or PTX,
    returned as bytes for module_from_buffer or a Linker. ``target="ptx"``
    gives PTX text; "fatbin" is not offered (NVRTC makes no fat binaries).
    The arch is the current GPU's unless named (arch=, -arch); with no GPU
    (the CPU backend) it must be named."""
    if target not in ("cubin", "ptx", "fatbin"):
        raise ArgumentError(f"compile: target must be 'cubin' or 'ptx', got {target!r}")
    if target == "fatbin":
        raise NotSupported(
            "compile: target='fatbin' is not offered: NVRTC makes a cubin or PTX.\n"
            "  hint: use target='cubin' (for this GPU) or target='ptx' (the driver compiles it "
            "for any newer GPU)")
    if not isinstance(source, str):
        raise ArgumentError(f"compile: source must be a str, got {type(source).__name__}")
    parsed = _parse_options(list(DEFAULT_NVCC_FLAGS) + _option_list(options, "compile"),
                            "cuda")
    gpu_arch = _gpu_target(parsed, arch, code, "compile")
    if target == "ptx" and gpu_arch.startswith("sm_"):
        gpu_arch = "compute_" + gpu_arch[3:]
    image, _fmt, _arch, _log = _core._compile_only(
        source, gpu_arch, parsed.std, parsed.defines,
        [str(d) for d in list(include_dirs) + parsed.include_dirs], parsed.extra_flags,
        parsed.debug or _debug_compile, parsed.line_info or _debug_compile, parsed.fast_math,
        bool(no_extern_c), target == "ptx")
    if target == "ptx":
        image = image.rstrip(b"\0")
    if keep:
        directory = tempfile.mkdtemp(prefix="cudakit-keep-")
        with open(os.path.join(directory, "kernel.cu"), "w") as f:
            f.write(_core._prepare_source(source, bool(no_extern_c)))
        with open(os.path.join(directory, "kernel." + target), "wb") as b:
            b.write(image)
        print(f"*** compiler output in {directory}")
    return image


class SourceModule:
    """CUDA C source compiled at run time and loaded: PyCUDA's SourceModule.

    ``nvcc`` is accepted and ignored (NVRTC compiles in-process). The source
    is wrapped in ``extern "C" { }`` unless ``no_extern_c`` (then
    get_function also finds a C++-linkage kernel by its plain name).
    ``cache_dir=False`` turns the compile cache off; a path uses a cache there.
    ``source_name`` (a cudakit addition) is the file name compiler messages,
    debuggers and sanitizers show for the source ("my_filter.cu:12"); the
    default is "kernel.cu". Without it, under ``cudakit run --sanitize`` and
    ``cudakit check`` the sanitizers' reports name the lines of the Python
    file holding the source (docs/guide/debugging.md).
    """

    def __init__(self, source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None,
                 keep: bool = False, no_extern_c: bool = False, arch: str | None = None,
                 code: str | None = None, cache_dir: Any = None,
                 include_dirs: Sequence[str] = (), source_name: str | None = None) -> None:
        if not isinstance(source, str):
            raise ArgumentError(f"SourceModule: source must be a str, got {type(source).__name__}")
        if source_name is not None and (not isinstance(source_name, str) or not source_name):
            raise ArgumentError(
                f"SourceModule: source_name must be a non-empty str, got {source_name!r}")
        # Under the debugging tools the sanitizers' reports name the Python
        # file's lines (see _source_lines), unless the caller named the source.
        directive = "" if source_name else source_line_directive(source, depth=1)
        try:
            self._module = _compile_marked(directive, source, options, no_extern_c, arch, code,
                                           cache_dir, include_dirs, source_name)
        except CompileError as error:
            if uses_texture_references(source) and _core._backend() != "cpu":
                raise texture_compile_error(error) from error
            raise
        self.source = source
        # What pickle sends to rebuild it in another process (nvcc and keep
        # have no effect there).
        self._pickle_recipe = (source, tuple(_option_list(options, "SourceModule")),
                               bool(no_extern_c), arch, code, cache_dir, tuple(include_dirs),
                               source_name)
        if keep:
            directory = tempfile.mkdtemp(prefix="cudakit-keep-")
            with open(os.path.join(directory, "kernel.cu"), "w") as f:
                f.write(self._module.source)
            print(f"*** compiler output in {directory}")

    def get_function(self, name: str) -> _core.Function:
        function = self._module.get_function(name)
        function._pickle_origin = (self._pickle_recipe, name)
        return function

    def __reduce__(self) -> Any:
        """Pickled as its source and options: compiled again (or taken from
        the compile cache) in the process that unpickles it."""
        return _source_module_from_recipe, self._pickle_recipe

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a __device__ / __constant__ variable."""
        return self._module.get_global(name)

    def get_texref(self, name: str) -> Any:
        """The ``texture<...> name;`` of the source: a TextureReference (the CPU backend
        only: CUDA 12 removed texture references)."""
        from ._texture_references import texture_reference
        return texture_reference(self, name)

    def get_surfref(self, name: str) -> Any:
        """The ``surface<void, ...> name;`` of the source (the CPU backend only)."""
        from ._texture_references import texture_reference
        return texture_reference(self, name, surface=True)

    def kernel_names(self) -> list[str]:
        return self._module.kernel_names()

    @property
    def compile_log(self) -> str:
        return self._module.log


from ._dynamic_module import DynamicModule, DynamicSourceModule  # noqa: E402,F401


# ---- pickling: a module and its kernels travel as source and options ------------------------

_REBUILT_MODULES: dict[tuple[Any, ...], SourceModule] = {}
_MAX_REBUILT_MODULES = 64


def _source_module_from_recipe(source: str, options: Sequence[str], no_extern_c: bool,
                               arch: str | None, code: str | None, cache_dir: Any,
                               include_dirs: Sequence[str], source_name: str | None
                               ) -> SourceModule:
    """The unpickling side of SourceModule: a new module (its own __device__
    variables), compiled for the current device or taken from the cache."""
    return SourceModule(source, options=list(options), no_extern_c=no_extern_c, arch=arch,
                        code=code, cache_dir=cache_dir, include_dirs=list(include_dirs),
                        source_name=source_name)


def _rebuild_function(recipe: tuple[Any, ...], name: str) -> _core.Function:
    """The unpickling side of a SourceModule's kernel: kernels sent from
    modules of one source and options arrive in one module per device (which
    holds their __device__ variables), loaded once however often they come."""
    key = (*recipe, _core.jit_current_device())
    module = _REBUILT_MODULES.get(key)
    if module is None:
        module = _source_module_from_recipe(*recipe)
        if len(_REBUILT_MODULES) >= _MAX_REBUILT_MODULES:
            del _REBUILT_MODULES[next(iter(_REBUILT_MODULES))]
        _REBUILT_MODULES[key] = module
    return module.get_function(name)


def _reduce_function(self: _core.Function, protocol: int) -> Any:
    origin = self._pickle_origin
    if origin is None:
        from ._pickling import NotPicklableError
        raise NotPicklableError(
            f"cannot pickle the kernel {self.name!r}: only kernels of a SourceModule travel "
            "(as its source and options); this one was loaded from compiled code "
            "(module_from_buffer, module_from_file, a Linker or a DynamicModule). Send the "
            "CUDA C source and compile it in the receiving process")
    return _rebuild_function, origin


_core.Function.__reduce_ex__ = _reduce_function  # type: ignore[method-assign]


class CudaModule(abc.ABC):
    """PyCUDA's base of SourceModule and DynamicModule (for isinstance)."""


CudaModule.register(SourceModule)
CudaModule.register(DynamicModule)


def compile_plain(source: str, options: Sequence[str] | None, keep: bool, nvcc: str,
                  cache_dir: Any, target: str = "cubin") -> bytes:
    """PyCUDA's lower half of compile(): ``source`` as given (no extern "C"
    added) compiled to ``target``. cudakit compiles it with NVRTC, as
    compile() does, rather than in an nvcc subprocess."""
    return compile(source, nvcc, options, keep, no_extern_c=True, cache_dir=cache_dir,
                   target=target)
