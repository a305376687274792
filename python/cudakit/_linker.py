"""PyCUDA's device-code linker on cudakit: ``driver.Linker``,
``driver.jit_input_type``, ``driver.jit_option`` and loading modules from
bytes and files (``driver.module_from_buffer`` / ``module_from_file``).

The linker is the driver's JIT linker (cuLinkCreate ... cuLinkComplete),
through cudakit::Linker: relocatable PTX and cubins, fatbins, objects and
libraries (libcudadevrt.a for device-side launches) link into one cubin,
loaded as a module; a link holding LTO-IR (jit_input_type.NVVM) goes
through nvJitLink. It needs a GPU; on the CPU backend it raises
NotSupported.
"""

from __future__ import annotations

import enum
import os
from typing import Any, Callable, Iterable

from . import _core
from ._core import ArgumentError, Error


class jit_input_type(enum.IntEnum):
    """CUjitInputType: what a linker input holds (the driver's numbering)."""

    CUBIN = 0
    PTX = 1
    FATBINARY = 2
    OBJECT = 3
    LIBRARY = 4
    NVVM = 5  # LTO-IR: the link then goes through nvJitLink


class jit_option(enum.IntEnum):
    """CUjit_option, the driver's numbering (the ones a Linker takes are
    OPTIMIZATION_LEVEL, GENERATE_DEBUG_INFO, LOG_VERBOSE, GENERATE_LINE_INFO;
    cudakit sets the log buffers itself)."""

    MAX_REGISTERS = 0
    THREADS_PER_BLOCK = 1
    WALL_TIME = 2
    INFO_LOG_BUFFER = 3
    INFO_LOG_BUFFER_SIZE_BYTES = 4
    ERROR_LOG_BUFFER = 5
    ERROR_LOG_BUFFER_SIZE_BYTES = 6
    OPTIMIZATION_LEVEL = 7
    TARGET_FROM_CUCONTEXT = 8
    TARGET = 9
    FALLBACK_STRATEGY = 10
    GENERATE_DEBUG_INFO = 11
    LOG_VERBOSE = 12
    GENERATE_LINE_INFO = 13
    CACHE_MODE = 14


_LINK_OPTIONS = {
    jit_option.OPTIMIZATION_LEVEL: "optimization_level",
    jit_option.GENERATE_DEBUG_INFO: "debug",
    jit_option.LOG_VERBOSE: "verbose_log",
    jit_option.GENERATE_LINE_INFO: "line_info",
}

MessageHandler = Callable[[bool, str, str], Any]


def _input_type(value: Any, use: str) -> int:
    try:
        return int(jit_input_type(value))
    except (ValueError, TypeError):
        names = ", ".join(f"jit_input_type.{t.name}" for t in jit_input_type)
        raise ArgumentError(
            f"{use}: unknown input type {value!r}.\n  hint: use one of {names}") from None


def _link_options(options: Any) -> dict[str, Any]:
    """PyCUDA's options, [(jit_option, value), ...] or {jit_option: value}."""
    if options is None:
        return {}
    pairs: Iterable[Any] = options.items() if isinstance(options, dict) else options
    parsed: dict[str, Any] = {}
    for pair in pairs:
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise ArgumentError(
                f"Linker: options must be (jit_option, value) pairs, got {pair!r}") from None
        try:
            name = _LINK_OPTIONS[jit_option(key)]
        except (ValueError, KeyError):
            known = ", ".join(f"jit_option.{k.name}" for k in _LINK_OPTIONS)
            raise ArgumentError(
                f"Linker: the option {key!r} is not taken by cudakit's linker.\n"
                f"  hint: use {known}; the log buffers are set by cudakit "
                "(message_handler receives the logs)") from None
        parsed[name] = int(value) if name == "optimization_level" else bool(value)
    return parsed



def _as_bytes(data: Any, refusal: str) -> bytes:
    """Code or a file image as bytes (a str is encoded); `refusal` starts
    the error for anything else."""
    if isinstance(data, str):
        return data.encode()
    try:
        return bytes(data)
    except TypeError:
        raise ArgumentError(f"{refusal}, got {type(data).__name__}") from None

class Linker:
    """PyCUDA's ``driver.Linker(message_handler=None, options=None,
    log_verbose=False)``: add_data / add_file, then link_module().

    ``message_handler(succeeded, info_log, error_log)`` is called once the
    link is done (or has failed). Needs a GPU: NotSupported on the CPU backend.
    """

    def __init__(self, message_handler: MessageHandler | None = None, options: Any = None,
                 log_verbose: bool = False) -> None:
        settings = _link_options(options)
        settings["verbose_log"] = bool(log_verbose) or settings.get("verbose_log", False)
        self._linker = _core._Linker(**settings)
        self._message_handler = message_handler
        self._libraries: set[str] = set()

    def add_data(self, data: Any, input_type: Any, name: str = "unknown") -> "Linker":
        kind = _input_type(input_type, "Linker.add_data")
        self._linker.add_data(_as_bytes(data, "Linker.add_data: data must be bytes or str"),
                              kind, str(name))
        return self

    def add_file(self, filename: Any, input_type: Any) -> "Linker":
        kind = _input_type(input_type, "Linker.add_file")
        path = os.fspath(filename)
        self._linker.add_file(path, kind)
        if kind == jit_input_type.LIBRARY:
            self._libraries.add(os.path.abspath(path))
        return self

    def has_library(self, path: str) -> bool:
        return os.path.abspath(path) in self._libraries

    def _add_source(self, source: str, **compile_options: Any) -> None:
        self._linker.add_source(source, **compile_options)

    def link_module(self) -> Any:
        try:
            module = self._linker.link_module()
        except Error as error:
            if self._message_handler is not None:
                self._message_handler(False, "", str(error))
            raise
        if self._message_handler is not None:
            self._message_handler(True, self._linker.info_log, "")
        return module

    @property
    def info_log(self) -> str:
        return self._linker.info_log


def module_from_buffer(buffer: Any, options: Any = None,
                       message_handler: MessageHandler | None = None) -> Any:
    """A module from a cubin, fatbin or PTX in memory (format told by content).
    JIT options are not taken (the driver compiles PTX for this GPU with its
    defaults); message_handler(succeeded, info_log, error_log) is called."""
    if options:
        raise ArgumentError(
            "module_from_buffer: JIT options are not taken by cudakit "
            f"(got {list(options)!r}).\n  hint: leave options out; to set the JIT's "
            "optimization level or debug information, link the code with "
            "driver.Linker(options=...)")
    data = _as_bytes(buffer, "module_from_buffer: expected bytes")
    try:
        module = _core._module_from_buffer(data)
    except Error as error:
        if message_handler is not None:
            message_handler(False, "", str(error))
        raise
    if message_handler is not None:
        message_handler(True, module.log, "")
    return module


def module_from_file(filename: Any) -> Any:
    """A module from a cubin, fatbin, PTX or (CPU backend) shared object file."""
    return _core._module_from_file(os.fspath(filename))
