# Replacements for entries nanobind's stubgen cannot read a signature from
# (methods written against the C API for speed).

cudakit._core.Function.prepared_call$:
    def prepared_call(self, grid: tuple[int, ...] | int, block: tuple[int, ...] | int, /, *args: object, shared_size: int | None = None) -> None:
        """Launches with the argument types given to prepare()."""

cudakit._core.Function.prepared_async_call$:
    def prepared_async_call(self, grid: tuple[int, ...] | int, block: tuple[int, ...] | int, stream: object, /, *args: object, shared_size: int | None = None) -> None:
        """prepared_call on `stream`."""
