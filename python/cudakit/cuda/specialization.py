"""One compiled @cuda.jit kernel for one tuple of argument types, and the
declared parameter types the launch's converter reads."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from .. import _core
from .launch_parameters import _dim3
from .linked_code import check_can_link, compiled_inputs, link_kernel
from .translate import types as t
from .translate.errors import TranslationError
from .translate.typing import KernelTranslation


def _param(ty: t.Type) -> Any:
    """The declared type of one parameter, as the launch's converter reads it."""
    if isinstance(ty, t.Scalar):
        return _core.JitParam.scalar(ty.storage_name)
    if isinstance(ty, t.TupleT):
        return _core.JitParam.tuple([item.name for item in ty.items])  # type: ignore[union-attr]
    if isinstance(ty, (t.PointerT, t.RecordT)):
        return _core.JitParam.pointer()  # a record: the address of its device copy
    assert isinstance(ty, t.ArrayT)
    if isinstance(ty.dtype, t.RecordT):
        # Records travel as their bytes: the view's element is the record.
        return _core.JitParam.array("uint8", ty.ndim, ty.dtype.itemsize)
    return _core.JitParam.array(ty.dtype.storage_name, ty.ndim, max(1, ty.dtype.bits // 8))


class _Specialization:
    """One compiled kernel for one tuple of argument types."""

    # Compiled for one launch configuration only (launchconfig's
    # mark_launch_config_sensitive() during its compilation).
    launch_config_sensitive = False

    def __init__(self, translation: KernelTranslation, options: dict[str, Any]) -> None:
        self.translation = translation
        self.arg_types = translation.arg_types
        # A tuple argument (nested or not) is one parameter per item.
        params = [_param(leaf) for a in self.arg_types for _, leaf in t.tuple_leaves(a)]
        if translation.takes_dynamic_shared_bytes:
            params.append(_core.JitParam.scalar("uint64"))
        compiled = compiled_inputs(translation.linked_files)
        if compiled:  # (NotSupported on the CPU backend)
            check_can_link(compiled, _core.jit_backend())
        try:
            if compiled:
                module = link_kernel(translation.source, compiled, bool(options.get("debug")),
                                     bool(options.get("lineinfo")),
                                     bool(options.get("fastmath")),
                                     int(options.get("max_registers") or 0))
                self.kernel = _core.JitKernel.from_module(
                    module, translation.kernel_name, params, translation.cooperative)
            else:
                self.kernel = _core.JitKernel(
                    translation.source, translation.kernel_name, params,
                    debug=bool(options.get("debug")),
                    line_info=bool(options.get("lineinfo")),
                    fast_math=bool(options.get("fastmath")),
                    max_registers=int(options.get("max_registers") or 0),
                    cooperative=translation.cooperative)
        except Exception as error:
            if "compil" not in str(error):
                raise
            if translation.linked_files:
                # The linked CUDA C/C++ is the user's: the likelier culprit.
                raise TranslationError(
                    "the kernel, with the CUDA C/C++ it links ("
                    f"{', '.join(translation.linked_files)}), did not compile; check the "
                    "linked source and its #includes (searched next to it and in "
                    "cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS); the compiler said:\n"
                    f"{error}") from error
            # The translator should only emit C++ that compiles: a failure
            # here is a cudakit bug, reported with the Python lines it names.
            raise TranslationError(
                "the CUDA C++ generated for this kernel did not compile (a cudakit bug: "
                "please report it with this message); the compiler said, at the Python "
                f"lines its #line directives point to:\n{error}") from error
        if options.get("shared_memory_carveout") is not None:  # (a hint to the driver)
            self.kernel.set_shared_memory_carveout(int(options["shared_memory_carveout"]))
        self.max_threads = self.kernel.max_threads_per_block
        bounds = options.get("launch_bounds")
        if bounds:  # (the driver's limit on a GPU; the CPU backend ignores the bounds)
            self.max_threads = min(self.max_threads or bounds[0], bounds[0])
        # Numba launches a kernel that calls grid.sync() cooperatively.
        self.cooperative = translation.cooperative

    @property
    def _type_annotation(self) -> SimpleNamespace:
        """Numba's typing record of the kernel: typemap gives each argument's
        and local variable's type by name (what inspect_types prints)."""
        return SimpleNamespace(typemap=dict(self.translation.local_types))

    def max_cooperative_grid_blocks(self, blockdim: Any, dynsmemsize: int = 0) -> int:
        """The most blocks of `blockdim` a cooperative launch of this kernel
        may have (all resident at once), as Numba's overload method."""
        x, y, z = _dim3(blockdim, "blockdim")
        return int(self.kernel.max_cooperative_grid_blocks(x * y * z, int(dynsmemsize)))
