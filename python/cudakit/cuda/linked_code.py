"""Code a kernel links: `@cuda.jit(link=[...])` and
`cuda.declare_device(..., link=...)`, as numba-cuda's linkable_code.

CUDA C/C++ (a .cu file, CUSource) joins the kernel's translation unit
(foreign.linked_source), for NVRTC and the CPU backend alike. Compiled
code (.ptx, .cubin, .fatbin, .o, .a and .lib files, or PTXSource, Cubin,
Fatbin, Object, Archive in memory) is linked on a GPU: the translated
kernel is compiled as relocatable code (-rdc=true) and the driver's linker
(cudakit.driver.Linker) links it with those inputs into one module. The
CPU backend cannot run compiled GPU code: such a kernel raises NotSupported
when it is compiled. A link holding LTO-IR (.ltoir, LTOIR) goes through
nvJitLink (LibraryNotFound, with the fix, where there is none).

Each in-memory object is a str (a name holding its data's digest: what
messages and the disk cache's key show) that carries its data.
"""

from __future__ import annotations

import hashlib
import io
import os
from typing import Any

from .._core import NotSupported

# File suffix -> kind (numba-cuda's FILE_EXTENSION_MAP keys), for compiled code.
COMPILED_SUFFIXES = {".ptx": "ptx", ".cubin": "cubin", ".fatbin": "fatbin", ".o": "o",
                     ".a": "a", ".lib": "a", ".ltoir": "ltoir"}


class LinkableCode(str):
    """numba-cuda's LinkableCode(data, name=None, setup_callback=None,
    teardown_callback=None, nrt=False): code to link from memory. data is
    str, bytes, or an io.StringIO / io.BytesIO read when linked. The
    callbacks (run around the module's load and unload in numba-cuda) and
    nrt (Numba's reference-counting runtime) are not taken."""

    kind = ""
    default_name = "<unnamed>"

    def __new__(cls, data: Any, name: str | None = None, setup_callback: Any = None,
                teardown_callback: Any = None, nrt: bool = False) -> "LinkableCode":
        if cls is LinkableCode:
            raise TypeError("LinkableCode is the base: use CUSource, PTXSource, Cubin, Fatbin, "
                            "Object, Archive or LTOIR (or LinkableCode.from_path)")
        if setup_callback is not None or teardown_callback is not None:
            raise NotSupported(f"{cls.__name__}: setup_callback / teardown_callback are not "
                               "taken by cudakit (it runs nothing around a module's load); "
                               "leave them out")
        if nrt:
            raise NotSupported(f"{cls.__name__}(nrt=True): cudakit has no Numba runtime (NRT) "
                               "to link; leave nrt out")
        if isinstance(data, (io.StringIO, io.BytesIO)):
            data = data.getvalue()
        if not isinstance(data, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"{cls.__name__} takes the code as str, bytes or an io.StringIO / "
                            f"io.BytesIO, got {type(data).__name__}")
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if not raw:
            raise ValueError(f"{cls.__name__}: the code is empty")
        label = name or cls.default_name
        self = super().__new__(cls, f"<{cls.__name__} {label} "
                                    f"{hashlib.sha256(raw).hexdigest()[:16]}>")
        self.raw = raw
        self.name = label
        return self

    @property
    def data(self) -> Any:
        return self.raw

    @staticmethod
    def from_path(path: Any) -> "LinkableCode":
        """The file `path` as the LinkableCode its suffix names (.cu, .ptx,
        .cubin, .fatbin, .o, .a, .ltoir)."""
        path = os.fspath(path)
        root, suffix = os.path.splitext(path)
        kinds = {".cu": CUSource, **{s: _BY_KIND[k] for s, k in COMPILED_SUFFIXES.items()}}
        if suffix not in kinds:
            raise ValueError(f"LinkableCode.from_path: cannot link {path}: unknown suffix "
                             f"{suffix!r} (takes {', '.join(kinds)})")
        with open(path, "rb") as handle:
            return kinds[suffix](handle.read(), name=os.path.basename(root))

    @classmethod
    def from_path_or_obj(cls, path_or_obj: Any) -> "LinkableCode":
        if isinstance(path_or_obj, LinkableCode):
            return path_or_obj
        return cls.from_path(path_or_obj)


class CUSource(LinkableCode):
    """CUDA C/C++ source in memory: it joins the kernel's translation unit
    as a .cu file's text does."""

    kind = "cu"
    default_name = "source"

    @property
    def data(self) -> str:
        return self.raw.decode()


class PTXSource(LinkableCode):
    """PTX in memory (relocatable, or with the symbols the kernel calls)."""

    kind = "ptx"
    default_name = "<unnamed-ptx>"


class Cubin(LinkableCode):
    """An ELF cubin in memory."""

    kind = "cubin"
    default_name = "<unnamed-cubin>"


class Fatbin(LinkableCode):
    """A fatbin in memory."""

    kind = "fatbin"
    default_name = "<unnamed-fatbin>"


class Object(LinkableCode):
    """An object file (nvcc -dc) in memory."""

    kind = "o"
    default_name = "<unnamed-object>"


class Archive(LinkableCode):
    """A library of objects (.a) in memory."""

    kind = "a"
    default_name = "<unnamed-archive>"


class LTOIR(LinkableCode):
    """LTO-IR (NVRTC's or nvcc's -dlto) in memory."""

    kind = "ltoir"
    default_name = "<unnamed-ltoir>"


_BY_KIND = {c.kind: c for c in (PTXSource, Cubin, Fatbin, Object, Archive, LTOIR)}


def compiled_kind(item: str) -> str:
    """The kind of compiled code `item` (a path or an in-memory object)
    holds ("ptx", "cubin", ...), or "" for CUDA C/C++ source."""
    if isinstance(item, LinkableCode):
        return "" if isinstance(item, CUSource) else item.kind
    return COMPILED_SUFFIXES.get(os.path.splitext(item)[1], "")


def compiled_inputs(linked: Any) -> list[str]:
    """The compiled code among a kernel's linked items, in their order."""
    return [item for item in linked if compiled_kind(item)]


def check_can_link(linked: Any, backend: str) -> None:
    """NotSupported, naming the input, for compiled code on the CPU backend."""
    for item in compiled_inputs(linked):
        if backend != "cuda":
            raise NotSupported(
                f"cuda.jit(link=...): cannot link {item}: it is compiled GPU code "
                f"({compiled_kind(item)}), which the CPU backend cannot run (it compiles "
                "kernels from CUDA C/C++ source); link CUDA C/C++ source (.cu, CUSource) "
                "instead, or run on a GPU (CUDAKIT_BACKEND=cuda)")


def link_kernel(source: str, linked: Any, debug: bool, line_info: bool, fast_math: bool,
                max_registers: int) -> Any:
    """The module of the translated kernel `source` (compiled relocatable
    for the current GPU) linked with the compiled code in `linked`."""
    from .._linker import Linker, jit_input_type
    check_can_link(linked, "cuda")
    input_types = {"ptx": jit_input_type.PTX, "cubin": jit_input_type.CUBIN,
                   "fatbin": jit_input_type.FATBINARY, "o": jit_input_type.OBJECT,
                   "a": jit_input_type.LIBRARY, "ltoir": jit_input_type.NVVM}
    linker = Linker(options={_debug_option(): True} if debug else None)
    flags = ["-rdc=true"]
    if max_registers > 0:
        flags.append(f"--maxrregcount={max_registers}")
    linker._add_source(source, arch="", std="", defines=[], include_dirs=[], extra_flags=flags,
                       debug=debug, line_info=line_info, fast_math=fast_math,
                       no_extern_c=True, name="kernel.cu")
    for item in compiled_inputs(linked):
        kind = input_types[compiled_kind(item)]
        if isinstance(item, LinkableCode):
            linker.add_data(item.raw, kind, item.name)
        else:
            linker.add_file(item, kind)
    return linker.link_module()


def _debug_option() -> Any:
    from .._linker import jit_option
    return jit_option.GENERATE_DEBUG_INFO
