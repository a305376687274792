"""`numba.cuda.core.callconv`: the two ways compile() exports a device
function to PTX, as numba-cuda names them. Each writes the `extern "C"`
wrapper around the translated function:

- CUDACallConv, Numba's ABI: `int name(ret *result, args...)` stores the
  value through the first parameter and returns a status (0: success);
- CUDACABICallConv, the C ABI: `ret name(args...)`, as C++ callers expect.

cudakit generates CUDA C++, not LLVM IR: these classes have none of
Numba's lowering methods, only the wrapper text.
"""

from __future__ import annotations


class BaseCallConv:
    """An export ABI: wrapper(name, result C type, parameters, call) is the
    C++ text of the exported function, given the call of the translated one."""

    def __init__(self, context: object = None) -> None:
        self.context = context

    def wrapper(self, name: str, result_ctype: str, params: list[str], call: str) -> str:
        raise NotImplementedError


class CUDACallConv(BaseCallConv):
    """Numba's ABI: the result through a pointer, a status returned."""

    def wrapper(self, name: str, result_ctype: str, params: list[str], call: str) -> str:
        if result_ctype == "void":
            return f'extern "C" __device__ int {name}({", ".join(params)}) {{ {call}; return 0; }}'
        all_params = ", ".join([f"{result_ctype}* ck_result", *params])
        return (f'extern "C" __device__ int {name}({all_params}) '
                f"{{ *ck_result = {call}; return 0; }}")


class CUDACABICallConv(BaseCallConv):
    """The C ABI: the result returned, as a C++ function returns it."""

    def wrapper(self, name: str, result_ctype: str, params: list[str], call: str) -> str:
        body = f"{call};" if result_ctype == "void" else f"return {call};"
        return f'extern "C" __device__ {result_ctype} {name}({", ".join(params)}) {{ {body} }}'


__all__ = ["BaseCallConv", "CUDACABICallConv", "CUDACallConv"]
