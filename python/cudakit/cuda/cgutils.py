"""`numba.cuda.cgutils`: the struct proxy that lowering functions build a
program's struct values with (`create_struct_proxy(ty)(context, builder)`,
members set as attributes, `_getvalue()`). Here the members are C++
expressions: the value is the struct they initialise."""

from __future__ import annotations

from typing import Any


class StructValue:
    """A struct value built by a lowering function: member -> C++ expression."""

    def __init__(self, fe_type: Any, members: dict[str, Any]) -> None:
        self.fe_type = fe_type
        self.members = members


def create_struct_proxy(fe_type: Any) -> type:
    class StructProxy:
        def __init__(self, context: Any, builder: Any, value: Any = None,
                     ref: Any = None) -> None:
            members = dict(value.members) if isinstance(value, StructValue) else {}
            object.__setattr__(self, "_members", members)

        def __setattr__(self, name: str, value: Any) -> None:
            self._members[name] = value

        def __getattr__(self, name: str) -> Any:
            try:
                return self.__dict__["_members"][name]
            except KeyError:
                raise AttributeError(f"the struct has no member {name!r} set") from None

        def _getvalue(self) -> StructValue:
            return StructValue(fe_type, dict(self._members))

    return StructProxy
