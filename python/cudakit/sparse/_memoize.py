"""``memoize_method`` (pytools' decorator, which PyCUDA's sparse code uses):
a method's result cached on the instance per argument tuple."""

from __future__ import annotations

import functools
from typing import Any, Callable


def memoize_method(method: Callable[..., Any]) -> Callable[..., Any]:
    cache_name = f"_memoized_{method.__name__}"

    @functools.wraps(method)
    def cached(self: Any, *args: Any) -> Any:
        cache = self.__dict__.setdefault(cache_name, {})
        if args not in cache:
            cache[args] = method(self, *args)
        return cache[args]

    return cached
