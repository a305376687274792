"""PyCUDA's ``DynamicModule`` and ``DynamicSourceModule`` on cudakit:
separate compilation and dynamic parallelism.

Each source is compiled by NVRTC to relocatable PTX (-rdc=true) for the
current GPU, the driver's JIT linker links the PTX with other inputs and
libraries (libcudadevrt.a, which device-side ``kernel<<<...>>>`` launches
need) into one cubin, and the module's kernels are launched as
SourceModule's are. On a GPU it needs compute capability 3.5 or newer.

On the CPU backend one source is compiled as a SourceModule is, and its
device-side launches run the child grid there and then (the CPU runtime
takes cudadevrt's place, so ``add_stdlib("cudadevrt")`` adds nothing);
linking several sources, data or files needs a GPU (NotSupported).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Sequence

from . import _core
from ._core import ArgumentError, NotSupported
from ._linker import Linker, MessageHandler, jit_input_type
from .compiler import DEFAULT_NVCC_FLAGS, _check_arch_runs_on, _option_list, _parse_options

_CPU_MESSAGE = (
    "{use}: separate compilation (linking several sources, PTX, cubins or libraries) needs a "
    "GPU; the CPU backend has no device-code linker. It runs one source, with its "
    "device-side launches (dynamic parallelism).\n"
    "  hint: run on a machine with a CUDA GPU (compute capability 3.5 or newer), or put the "
    "code in one source (one add_source, or DynamicSourceModule)")


def _without_libraries(options: Sequence[str]) -> list[str]:
    """The options less nvcc's -lNAME / -l NAME / --library=NAME (the CPU
    backend's SourceModule links nothing)."""
    kept: list[str] = []
    skip_next = False
    for option in options:
        text = str(option)
        if skip_next:
            skip_next = False
        elif text in ("-l", "--library"):
            skip_next = True
        elif not (text.startswith(("-l", "--library="))
                  and not text.startswith(("-lineinfo", "--library-path"))):
            kept.append(option)
    return kept


class DynamicModule:
    """Several CUDA C sources, PTX, cubins and libraries linked into one
    module: PyCUDA's DynamicModule.

    ``add_source`` compiles a source to relocatable PTX, ``add_data`` /
    ``add_file`` add inputs of a ``driver.jit_input_type``, ``add_stdlib``
    adds a CUDA toolkit library (``"cudadevrt"``) found in ``cuda_libdir``
    or, when that is None, in $CUDA_PATH / $CUDA_HOME / $CUDA_ROOT, the nvcc
    on PATH's toolkit, /usr/local/cuda and /usr/lib/x86_64-linux-gnu.
    ``link()`` links; then ``get_function`` / ``get_global`` work as for a
    SourceModule. ``nvcc`` is accepted and ignored (NVRTC compiles
    in-process); ``cache_dir`` is accepted for PyCUDA's signature.
    """

    def __init__(self, nvcc: str = "nvcc", link_options: Any = None, keep: bool = False,
                 no_extern_c: bool = False, arch: str | None = None, code: str | None = None,
                 cache_dir: Any = None, include_dirs: Sequence[str] | None = None,
                 message_handler: MessageHandler | None = None, log_verbose: bool = False,
                 cuda_libdir: Any = None) -> None:
        self._cpu = _core._backend() == "cpu"
        self.linker: Linker | None = None
        if self._cpu:
            self._device_arch = ""
        else:
            device = _core.Device._current()
            major, minor = device.compute_capability()
            if (major, minor) < (3, 5):
                raise NotSupported(
                    f"{type(self).__name__}: dynamic parallelism needs compute capability 3.5 "
                    f"or newer; this GPU has {major}.{minor}")
            self._device_arch = device.arch()
            for given in (arch, code):
                if given:
                    _check_arch_runs_on(given, self._device_arch)
            self.linker = Linker(message_handler, link_options, log_verbose)
        self._message_handler = message_handler
        self._linked = False
        self.nvcc = nvcc
        self.keep = keep
        self.no_extern_c = no_extern_c
        self.arch = arch
        self.code = code
        self.cache_dir = cache_dir
        self.include_dirs = list(include_dirs or [])
        self.cuda_libdir = cuda_libdir
        self.module: Any = None
        self._sources: list[tuple[str, str]] = []

    def _open_linker(self, use: str) -> Linker | None:
        """The linker (None on the CPU backend); ArgumentError once linked."""
        if self._linked:
            raise ArgumentError(
                f"{type(self).__name__}.{use}: the module is already linked.\n"
                "  hint: add every input before link(), or make a new DynamicModule")
        return self.linker

    def _cpu_refuses(self, use: str) -> None:
        raise NotSupported(_CPU_MESSAGE.format(use=f"{type(self).__name__}.{use}"))

    def add_source(self, source: str, nvcc_options: Sequence[str] | None = None,
                   name: str = "kernel.ptx") -> "DynamicModule":
        """Compiles `source` to relocatable PTX (-rdc=true) and adds it. -lNAME
        among the options adds that library as add_stdlib(NAME) does."""
        linker = self._open_linker("add_source")
        if not isinstance(source, str):
            raise ArgumentError(
                f"{type(self).__name__}.add_source: source must be a str, got "
                f"{type(source).__name__}")
        from . import compiler

        debug = compiler._debug_compile
        options = (list(DEFAULT_NVCC_FLAGS) if nvcc_options is None
                   else _option_list(nvcc_options, f"{type(self).__name__}.add_source"))
        if linker is None:  # the CPU backend: one source, compiled at link()
            if self._sources:
                self._cpu_refuses("add_source (a second source)")
            parsed = _parse_options(options, "cpu")
            self._sources.append((str(name), source))
            self._cpu_options = _without_libraries(options)
            for library in parsed.libraries:
                self.add_stdlib(library)
            return self
        parsed = _parse_options(options, "cuda")
        target = self.arch or parsed.arch or self.code or ""
        if target.startswith("compute_") and self.code and self.code.startswith("sm_"):
            target = self.code
        if target:
            _check_arch_runs_on(target, self._device_arch)
        linker._add_source(
            source, arch=target, std=parsed.std, defines=parsed.defines,
            include_dirs=[str(d) for d in self.include_dirs + parsed.include_dirs],
            extra_flags=parsed.extra_flags, debug=parsed.debug or debug,
            line_info=parsed.line_info or debug, fast_math=parsed.fast_math,
            no_extern_c=bool(self.no_extern_c), name=str(name))
        self._sources.append((str(name), source))
        for library in parsed.libraries:
            self.add_stdlib(library)
        return self

    def add_data(self, data: Any, input_type: Any, name: str = "unknown") -> "DynamicModule":
        linker = self._open_linker("add_data")
        if linker is None:
            self._cpu_refuses("add_data")
        linker.add_data(data, input_type, name)
        return self

    def add_file(self, filename: Any, input_type: Any) -> "DynamicModule":
        linker = self._open_linker("add_file")
        if linker is None:
            self._cpu_refuses("add_file")
        linker.add_file(filename, input_type)
        return self

    def add_stdlib(self, libname: str) -> "DynamicModule":
        """Adds the CUDA toolkit's lib<libname>.a (once, however often asked).
        LibraryNotFound naming every path tried when it is not there."""
        linker = self._open_linker("add_stdlib")
        if linker is None:
            # The CPU runtime runs device-side launches itself: cudadevrt's part.
            if str(libname) != "cudadevrt":
                self._cpu_refuses(f"add_stdlib({libname!r})")
            return self
        directories = [os.fspath(self.cuda_libdir)] if self.cuda_libdir is not None else []
        path = _core._find_cuda_library(str(libname), directories)
        if not linker.has_library(path):
            linker.add_file(path, jit_input_type.LIBRARY)
        return self

    def link(self) -> "DynamicModule":
        linker = self._open_linker("link")
        if linker is None:
            self.module = self._link_on_cpu()
        else:
            self.module = linker.link_module()
        self.linker = None
        self._linked = True
        if self.keep:
            directory = tempfile.mkdtemp(prefix="cudakit-keep-")
            for index, (name, source) in enumerate(self._sources):
                base = os.path.splitext(os.path.basename(name))[0] or "kernel"
                with open(os.path.join(directory, f"{index}_{base}.cu"), "w") as f:
                    f.write(source)
            print(f"*** compiler output in {directory}")
        return self

    def _link_on_cpu(self) -> Any:
        if not self._sources:
            raise ArgumentError(
                f"{type(self).__name__}.link: nothing was added.\n"
                "  hint: add_source(source) before link()")
        from .compiler import SourceModule

        name, source = self._sources[0]
        try:
            compiled = SourceModule(source, options=self._cpu_options, keep=False,
                                    no_extern_c=self.no_extern_c, cache_dir=self.cache_dir,
                                    include_dirs=self.include_dirs,
                                    source_name=None if name == "kernel.ptx" else name)
        except Exception as error:
            if self._message_handler is not None:
                self._message_handler(False, "", str(error))
            raise
        if self._message_handler is not None:
            self._message_handler(True, compiled.compile_log, "")
        return compiled._module

    def _linked_module(self, use: str) -> Any:
        if self.module is None:
            raise ArgumentError(
                f"{type(self).__name__}.{use}: the module is not linked yet.\n"
                "  hint: call link() after adding the sources")
        return self.module

    def get_function(self, name: str) -> Any:
        return self._linked_module("get_function").get_function(name)

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a __device__ / __constant__ variable."""
        return self._linked_module("get_global").get_global(name)

    def kernel_names(self) -> list[str]:
        return self._linked_module("kernel_names").kernel_names()

    def get_texref(self, name: str) -> Any:
        raise NotSupported(
            f"{type(self).__name__}.get_texref({name!r}): texture references are not supported: "
            "CUDA 12 removed them from the driver API")

    @property
    def link_log(self) -> str:
        """The linker's info log (resource usage with log_verbose=True)."""
        return self.module.log if self.module is not None else ""


class DynamicSourceModule(DynamicModule):
    """One source compiled with -rdc=true, linked with cudadevrt: a
    SourceModule whose kernels may launch kernels (dynamic parallelism)."""

    def __init__(self, source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None,
                 keep: bool = False, no_extern_c: bool = False, arch: str | None = None,
                 code: str | None = None, cache_dir: Any = None,
                 include_dirs: Sequence[str] | None = None, cuda_libdir: Any = None) -> None:
        super().__init__(nvcc=nvcc, link_options=None, keep=keep, no_extern_c=no_extern_c,
                         arch=arch, code=code, cache_dir=cache_dir, include_dirs=include_dirs,
                         cuda_libdir=cuda_libdir)
        options = (list(DEFAULT_NVCC_FLAGS) if options is None
                   else _option_list(options, "DynamicSourceModule"))
        if "-rdc=true" not in options:
            options.append("-rdc=true")
        if "-lcudadevrt" not in options:
            options.append("-lcudadevrt")
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()
