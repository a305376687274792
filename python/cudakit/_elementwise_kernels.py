"""PyCUDA's elementwise kernel builders (``pycuda.elementwise.get_*``).

Each gives what PyCUDA's does: a prepared Function whose arguments are the
C declaration's, then the element count ``n`` (PyCUDA's module source, so
``loop_prep``, ``after_loop``, ``tid``, ``total_threads`` and ``cta_start``
mean the same). The kernels PyCUDA feeds from texture references (take,
take_put, linear_combination with GPU scalars) read plain pointers here
(cudakit has no texture references): the source arrays are arguments after
the destinations, and the texture list returned beside the function is
empty. The kernels PyCUDA names real, imag and conj are real_kernel,
imag_kernel and conj_kernel (the bare names collide with the complex
functions of the same name on the CPU backend).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .tools import context_dependent_memoize, dtype_to_ctype, parse_c_arg

__all__ = [
    "get_elwise_module", "get_elwise_range_module", "get_elwise_kernel_and_types",
    "get_elwise_kernel", "get_take_kernel", "get_take_put_kernel", "get_put_kernel",
    "get_copy_kernel", "get_linear_combination_kernel", "get_axpbyz_kernel",
    "get_axpbz_kernel", "get_binary_op_kernel", "get_rdivide_elwise_kernel",
    "get_binary_func_kernel", "get_binary_func_scalar_kernel", "get_binary_minmax_kernel",
    "get_fill_kernel", "get_reverse_kernel", "get_real_kernel", "get_imag_kernel",
    "get_conj_kernel", "get_arange_kernel", "get_pow_array_kernel", "get_fmod_kernel",
    "get_modf_kernel", "get_frexp_kernel", "get_ldexp_kernel", "get_unary_func_kernel",
    "get_if_positive_kernel", "get_where_kernel", "get_scalar_op_kernel",
    "get_logical_not_kernel",
]

_LOOP = """
#include <pycuda-complex.hpp>

{preamble}

extern "C"
__global__ void {name}({arguments})
{{
  size_t tid = threadIdx.x;
  size_t total_threads = gridDim.x*blockDim.x;
  size_t cta_start = blockDim.x*blockIdx.x;
  {index} i;

  {loop_prep};

  {loop}

  {after_loop};
}}
"""

_COUNTED = """for (i = cta_start + tid; i < n; i += total_threads)
  {{
    {operation};
  }}"""

_RANGED = """if (step < 0)
  {{
    for (i = start + (cta_start + tid)*step; i > stop; i += total_threads*step)
    {{
      {operation};
    }}
  }}
  else
  {{
    for (i = start + (cta_start + tid)*step; i < stop; i += total_threads*step)
    {{
      {operation};
    }}
  }}"""


def _declarator(arg: Any) -> str:
    """PyCUDA's spelling (pycuda::complex<float>, ...): the module is plain
    CUDA C compiled by SourceModule."""
    from .elementwise import ScalarArg

    pointer = "" if isinstance(arg, ScalarArg) else "*"
    return f"{dtype_to_ctype(arg.dtype)} {pointer}{arg.name}"


def _module(arguments: Sequence[Any], operation: str, name: str, keep: bool, options: Any,
            preamble: str, loop_prep: str, after_loop: str, ranged: bool) -> Any:
    from .compiler import SourceModule

    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"elementwise kernel name must be a C identifier, got {name!r}")
    loop = (_RANGED if ranged else _COUNTED).format(operation=operation)
    source = _LOOP.format(preamble=preamble, name=name,
                          arguments=", ".join(_declarator(arg) for arg in arguments),
                          index="long" if ranged else "size_t", loop_prep=loop_prep,
                          loop=loop, after_loop=after_loop)
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def get_elwise_module(arguments: Sequence[Any], operation: str, name: str = "kernel",
                      keep: bool = False, options: Any = None, preamble: str = "",
                      loop_prep: str = "", after_loop: str = "") -> Any:
    """PyCUDA's: a SourceModule with kernel ``name(arguments)`` running
    ``operation`` for i in 0..n-1 (``arguments`` must declare ``n``)."""
    return _module(arguments, operation, name, keep, options, preamble, loop_prep,
                   after_loop, False)


def get_elwise_range_module(arguments: Sequence[Any], operation: str, name: str = "kernel",
                            keep: bool = False, options: Any = None, preamble: str = "",
                            loop_prep: str = "", after_loop: str = "") -> Any:
    """As get_elwise_module, for i in range(start, stop, step) (``arguments``
    must declare ``start``, ``stop`` and ``step``)."""
    return _module(arguments, operation, name, keep, options, preamble, loop_prep,
                   after_loop, True)


def get_elwise_kernel_and_types(arguments: str | Sequence[Any], operation: str,
                                name: str = "kernel", keep: bool = False, options: Any = None,
                                use_range: bool = False, **kwargs: Any) -> tuple[Any, Any, list]:
    """(module, prepared function, argument list): ``arguments`` (a C
    declaration list or VectorArg / ScalarArg objects) with ``n`` (or
    ``start, stop, step`` for use_range) appended."""
    from .elementwise import ScalarArg

    if isinstance(arguments, str):
        arguments = [parse_c_arg(arg) for arg in arguments.split(",")]
    arguments = list(arguments)
    if use_range:
        arguments += [ScalarArg(np.intp, "start"), ScalarArg(np.intp, "stop"),
                      ScalarArg(np.intp, "step")]
    else:
        arguments.append(ScalarArg(np.uintp, "n"))
    mod = _module(arguments, operation, name, keep, options, kwargs.pop("preamble", ""),
                  kwargs.pop("loop_prep", ""), kwargs.pop("after_loop", ""), use_range)
    if kwargs:
        raise TypeError(f"get_elwise_kernel: unknown keyword arguments {sorted(kwargs)} (it "
                        "takes preamble=, loop_prep=, after_loop=)")
    func = mod.get_function(name)
    func.prepare("".join(arg.struct_char for arg in arguments))
    return mod, func, arguments


def get_elwise_kernel(arguments: str | Sequence[Any], operation: str, name: str = "kernel",
                      keep: bool = False, options: Any = None, **kwargs: Any) -> Any:
    """The prepared Function of get_elwise_kernel_and_types."""
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]


def _vec(dtype: Any, name: str) -> Any:
    from .elementwise import VectorArg

    return VectorArg(dtype, name)


def _scalar(dtype: Any, name: str) -> Any:
    from .elementwise import ScalarArg

    return ScalarArg(dtype, name)


def _check_vec_count(vec_count: int, use: str) -> int:
    if isinstance(vec_count, bool) or not isinstance(vec_count, (int, np.integer)) \
            or vec_count < 1:
        raise ValueError(f"{use}: vec_count must be an int >= 1, got {vec_count!r}")
    return int(vec_count)


@context_dependent_memoize
def get_take_kernel(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> tuple[Any, list]:
    """(func, []): dest_k[i] = src_k[idx[i]]; arguments idx, dest_0.., src_0.., n."""
    vec_count = _check_vec_count(vec_count, "get_take_kernel")
    args = ([_vec(idx_dtype, "idx")] + [_vec(dtype, f"dest{k}") for k in range(vec_count)]
            + [_vec(dtype, f"src{k}") for k in range(vec_count)]
            + [_scalar(np.uintp, "n")])
    body = f"{dtype_to_ctype(idx_dtype)} src_idx = idx[i];\n" + "\n".join(
        f"dest{k}[i] = src{k}[src_idx];" for k in range(vec_count))
    return get_elwise_kernel(args[:-1], body, "take"), []


@context_dependent_memoize
def get_take_put_kernel(dtype: Any, idx_dtype: Any, with_offsets: bool,
                        vec_count: int = 1) -> tuple[Any, list]:
    """(func, []): dest_k[dest_idx[i]] = src_k[src_idx[i] (+ offset_k)];
    arguments dest_idx, src_idx, dest_0.., src_0.., [offset_0..], n."""
    vec_count = _check_vec_count(vec_count, "get_take_put_kernel")
    idx_dtype = np.dtype(idx_dtype)
    args = ([_vec(idx_dtype, "gmem_dest_idx"), _vec(idx_dtype, "gmem_src_idx")]
            + [_vec(dtype, f"dest{k}") for k in range(vec_count)]
            + [_vec(dtype, f"src{k}") for k in range(vec_count)]
            + [_scalar(idx_dtype, f"offset{k}") for k in range(vec_count) if with_offsets])
    idx_tp = dtype_to_ctype(idx_dtype)
    offset = [f" + offset{k}" if with_offsets else "" for k in range(vec_count)]
    body = (f"{idx_tp} src_idx = gmem_src_idx[i];\n{idx_tp} dest_idx = gmem_dest_idx[i];\n"
            + "\n".join(f"dest{k}[dest_idx] = src{k}[src_idx{offset[k]}];"
                         for k in range(vec_count)))
    return get_elwise_kernel(args, body, "take_put"), []


@context_dependent_memoize
def get_put_kernel(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> Any:
    """dest_k[dest_idx[i]] = src_k[i]; arguments dest_idx, dest_0.., src_0.., n."""
    vec_count = _check_vec_count(vec_count, "get_put_kernel")
    args = ([_vec(idx_dtype, "gmem_dest_idx")]
            + [_vec(dtype, f"dest{k}") for k in range(vec_count)]
            + [_vec(dtype, f"src{k}") for k in range(vec_count)])
    body = f"{dtype_to_ctype(idx_dtype)} dest_idx = gmem_dest_idx[i];\n" + "\n".join(
        f"dest{k}[dest_idx] = src{k}[i];" for k in range(vec_count))
    return get_elwise_kernel(args, body, "put")


@context_dependent_memoize
def get_copy_kernel(dtype_dest: Any, dtype_src: Any) -> Any:
    """dest[i] = src[i] (converted); arguments dest, src, n."""
    return get_elwise_kernel([_vec(dtype_dest, "dest"), _vec(dtype_src, "src")],
                             "dest[i] = src[i]", "copy")


@context_dependent_memoize
def get_linear_combination_kernel(summand_descriptors: Any, dtype_z: Any) -> tuple[Any, list]:
    """(func, []): z[i] = sum_k a_k * x_k[i]. ``summand_descriptors`` is a
    tuple of (is_gpu_scalar, scalar_dtype, vector_dtype); arguments a_0, x_0,
    a_1, x_1, ..., z, n, where a GPU scalar a_k is a pointer to its value
    (PyCUDA binds it to a texture reference instead)."""
    args: list[Any] = []
    loop_prep = []
    summands = []
    for k, (is_gpu_scalar, scalar_dtype, vector_dtype) in enumerate(summand_descriptors):
        if is_gpu_scalar:
            args.append(_vec(scalar_dtype, f"a{k}_ptr"))
            loop_prep.append(f"{dtype_to_ctype(scalar_dtype)} a{k} = a{k}_ptr[0]")
        else:
            args.append(_scalar(scalar_dtype, f"a{k}"))
        args.append(_vec(vector_dtype, f"x{k}"))
        summands.append(f"a{k}*x{k}[i]")
    if not summands:
        raise ValueError("get_linear_combination_kernel: give at least one summand "
                         "(is_gpu_scalar, scalar_dtype, vector_dtype)")
    args.append(_vec(dtype_z, "z"))
    func = get_elwise_kernel(args, "z[i] = " + " + ".join(summands), "linear_combination",
                             loop_prep=";\n".join(loop_prep))
    return func, []


def _operand_ctype(dtype: Any, dtype_z: np.dtype) -> str:
    """A real operand of a complex result is cast to the result's real type."""
    if dtype_z.kind == "c" and np.dtype(dtype).kind != "c":
        return dtype_to_ctype(np.empty(0, dtype_z).real.dtype)
    return dtype_to_ctype(dtype_z)


@context_dependent_memoize
def get_axpbyz_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, x_is_scalar: bool = False,
                      y_is_scalar: bool = False) -> Any:
    """z[i] = a*x[i] + b*y[i] (x[0] / y[0] for a scalar array); arguments a, x,
    b, y, z, n."""
    dtype_z = np.dtype(dtype_z)
    x_t, y_t = _operand_ctype(dtype_x, dtype_z), _operand_ctype(dtype_y, dtype_z)
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    return get_elwise_kernel(
        [_scalar(dtype_x, "a"), _vec(dtype_x, "x"), _scalar(dtype_y, "b"), _vec(dtype_y, "y"),
         _vec(dtype_z, "z")],
        f"z[i] = ({x_t}) a*(({x_t}) {x}) + (({y_t}) b)*(({y_t}) {y})", "axpbyz")


@context_dependent_memoize
def get_axpbz_kernel(dtype_x: Any, dtype_z: Any) -> Any:
    """z[i] = a*x[i] + b; arguments a, x, b, z, n."""
    return get_elwise_kernel(
        [_scalar(dtype_z, "a"), _vec(dtype_x, "x"), _scalar(dtype_z, "b"), _vec(dtype_z, "z")],
        "z[i] = a * x[i] + b", "axpb")


@context_dependent_memoize
def get_binary_op_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, operator: str,
                         x_is_scalar: bool = False, y_is_scalar: bool = False) -> Any:
    """z[i] = x[i] OP y[i] (x[0] / y[0] for a scalar array); arguments x, y, z, n."""
    if operator not in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=",
                        ">=", "==", "!=", "&&", "||"):
        raise ValueError(f"get_binary_op_kernel: operator {operator!r} is not a C binary "
                         "operator such as '+', '*', '<<' or '=='")
    dtype_z = np.dtype(dtype_z)
    out_t = dtype_to_ctype(dtype_z)
    x_t, y_t = _operand_ctype(dtype_x, dtype_z), _operand_ctype(dtype_y, dtype_z)
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    return get_elwise_kernel(
        [_vec(dtype_x, "x"), _vec(dtype_y, "y"), _vec(dtype_z, "z")],
        f"z[i] = ({out_t}) ({x_t}) {x} {operator} ({y_t}) {y}", "multiply")


@context_dependent_memoize
def get_rdivide_elwise_kernel(dtype_x: Any, dtype_z: Any) -> Any:
    """z[i] = y / x[i]; arguments x, y (a scalar), z, n."""
    return get_elwise_kernel([_vec(dtype_x, "x"), _scalar(dtype_z, "y"), _vec(dtype_z, "z")],
                             "z[i] = y / x[i]", "divide_r")


def _c_function_name(func: Any, use: str) -> str:
    if not isinstance(func, str) or not func.replace("::", "_").isidentifier():
        raise ValueError(f"{use}: func must be a C function name such as 'fmax', got {func!r}")
    return func


@context_dependent_memoize
def get_binary_func_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> Any:
    """z[i] = func(x[i], y[i]); arguments x, y, z, n."""
    func = _c_function_name(func, "get_binary_func_kernel")
    return get_elwise_kernel([_vec(dtype_x, "x"), _vec(dtype_y, "y"), _vec(dtype_z, "z")],
                             f"z[i] = {func}(x[i], y[i])", func.replace("::", "_") + "_kernel")


@context_dependent_memoize
def get_binary_func_scalar_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> Any:
    """z[i] = func(x[i], y) for a scalar y; arguments x, y, z, n."""
    func = _c_function_name(func, "get_binary_func_scalar_kernel")
    return get_elwise_kernel([_vec(dtype_x, "x"), _scalar(dtype_y, "y"), _vec(dtype_z, "z")],
                             f"z[i] = {func}(x[i], y)", func.replace("::", "_") + "_kernel")


def get_binary_minmax_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any,
                             use_scalar: bool) -> Any:
    """PyCUDA's: func 'max' or 'min', spelled fmaxf / fmax / max / ... for the dtypes."""
    if func not in ("max", "min"):
        raise ValueError(f"get_binary_minmax_kernel: func must be 'max' or 'min', got {func!r}")
    dtypes = [np.dtype(dtype_x), np.dtype(dtype_y), np.dtype(dtype_z)]
    if np.dtype(np.float64) not in dtypes[:2]:
        func = func + "f"
    if any(dt.kind == "f" for dt in dtypes):
        func = "f" + func
    if use_scalar:
        return get_binary_func_scalar_kernel(func, dtype_x, dtype_y, dtype_z)
    return get_binary_func_kernel(func, dtype_x, dtype_y, dtype_z)


@context_dependent_memoize
def get_fill_kernel(dtype: Any) -> Any:
    """z[i] = a; arguments a, z, n."""
    return get_elwise_kernel([_scalar(dtype, "a"), _vec(dtype, "z")], "z[i] = a", "fill")


@context_dependent_memoize
def get_reverse_kernel(dtype: Any) -> Any:
    """z[i] = y[n-1-i]; arguments y, z, n."""
    return get_elwise_kernel([_vec(dtype, "y"), _vec(dtype, "z")], "z[i] = y[n-1-i]",
                             "reverse")


@context_dependent_memoize
def get_real_kernel(dtype: Any, real_dtype: Any) -> Any:
    """z[i] = real(y[i]); arguments y, z, n."""
    return get_elwise_kernel([_vec(dtype, "y"), _vec(real_dtype, "z")], "z[i] = real(y[i])",
                             "real_kernel")


@context_dependent_memoize
def get_imag_kernel(dtype: Any, real_dtype: Any) -> Any:
    """z[i] = imag(y[i]); arguments y, z, n."""
    return get_elwise_kernel([_vec(dtype, "y"), _vec(real_dtype, "z")], "z[i] = imag(y[i])",
                             "imag_kernel")


@context_dependent_memoize
def get_conj_kernel(dtype: Any, conj_dtype: Any) -> Any:
    """z[i] = conj(y[i]); arguments y, z, n."""
    return get_elwise_kernel([_vec(dtype, "y"), _vec(conj_dtype, "z")],
                             "z[i] = pycuda::conj(y[i])", "conj_kernel")


@context_dependent_memoize
def get_arange_kernel(dtype: Any) -> Any:
    """z[i] = start + i*step; arguments z, start, step, n."""
    return get_elwise_kernel([_vec(dtype, "z"), _scalar(dtype, "start"),
                              _scalar(dtype, "step")], "z[i] = start + i*step", "arange")


@context_dependent_memoize
def get_pow_array_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, is_base_array: bool,
                         is_exp_array: bool) -> Any:
    """z[i] = pow(x, y) with x and / or y arrays; arguments x, y, z, n."""
    if not (is_base_array or is_exp_array):
        raise ValueError("get_pow_array_kernel: the base, the exponent or both must be arrays "
                         "(is_base_array or is_exp_array)")
    func = "powf" if np.dtype(dtype_z) == np.float32 else "pow"
    x = "x[i]" if is_base_array else "x"
    y = "y[i]" if is_exp_array else "y"
    x_arg = _vec(dtype_x, "x") if is_base_array else _scalar(dtype_x, "x")
    y_arg = _vec(dtype_y, "y") if is_exp_array else _scalar(dtype_y, "y")
    return get_elwise_kernel([x_arg, y_arg, _vec(dtype_z, "z")], f"z[i] = {func}({x},{y})",
                             "pow_method")


@context_dependent_memoize
def get_fmod_kernel() -> Any:
    """z[i] = fmod(arg[i], mod[i]) in float32; arguments arg, mod, z, n."""
    return get_elwise_kernel("float *arg, float *mod, float *z",
                             "z[i] = fmod(arg[i], mod[i])", "fmod_kernel")


@context_dependent_memoize
def get_modf_kernel() -> Any:
    """fracpart[i] = modf(x[i], &intpart[i]) in float32; arguments x, intpart, fracpart, n."""
    return get_elwise_kernel("float *x, float *intpart ,float *fracpart",
                             "fracpart[i] = modf(x[i], &intpart[i])", "modf_kernel")


@context_dependent_memoize
def get_frexp_kernel() -> Any:
    """significand[i], exponent[i] = frexp(x[i]) in float32; arguments x,
    significand, exponent, n."""
    return get_elwise_kernel("float *x, float *significand, float *exponent", """
        int expt = 0;
        significand[i] = frexp(x[i], &expt);
        exponent[i] = expt;""", "frexp_kernel")


@context_dependent_memoize
def get_ldexp_kernel() -> Any:
    """z[i] = ldexp(sig[i], int(expt[i])) in float32; arguments sig, expt, z, n."""
    return get_elwise_kernel("float *sig, float *expt, float *z",
                             "z[i] = ldexp(sig[i], int(expt[i]))", "ldexp_kernel")


@context_dependent_memoize
def get_unary_func_kernel(func_name: str, in_dtype: Any, out_dtype: Any = None) -> Any:
    """z[i] = func_name(y[i]); arguments y, z, n."""
    func_name = _c_function_name(func_name, "get_unary_func_kernel")
    if out_dtype is None:
        out_dtype = in_dtype
    return get_elwise_kernel([_vec(in_dtype, "y"), _vec(out_dtype, "z")],
                             f"z[i] = {func_name}(y[i])",
                             func_name.replace("::", "_") + "_kernel")


@context_dependent_memoize
def get_if_positive_kernel(crit_dtype: Any, dtype: Any) -> Any:
    """result[i] = crit[i] > 0 ? then_[i] : else_[i]; arguments crit, then_, else_, result, n."""
    return get_elwise_kernel([_vec(crit_dtype, "crit"), _vec(dtype, "then_"),
                              _vec(dtype, "else_"), _vec(dtype, "result")],
                             "result[i] = crit[i] > 0 ? then_[i] : else_[i]", "if_positive")


@context_dependent_memoize
def get_where_kernel(crit_dtype: Any, dtype: Any) -> Any:
    """result[i] = crit[i] != 0 ? then_[i] : else_[i]; arguments crit, then_, else_, result, n."""
    return get_elwise_kernel([_vec(crit_dtype, "crit"), _vec(dtype, "then_"),
                              _vec(dtype, "else_"), _vec(dtype, "result")],
                             "result[i] = crit[i] != 0 ? then_[i] : else_[i]", "if_positive")


@context_dependent_memoize
def get_scalar_op_kernel(dtype_x: Any, dtype_a: Any, dtype_y: Any, operator: str) -> Any:
    """y[i] = x[i] OP a; arguments x, a, y, n."""
    if operator not in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=",
                        ">=", "==", "!="):
        raise ValueError(f"get_scalar_op_kernel: operator {operator!r} is not a C binary "
                         "operator such as '+', '*' or '=='")
    return get_elwise_kernel([_vec(dtype_x, "x"), _scalar(dtype_a, "a"), _vec(dtype_y, "y")],
                             f"y[i] = x[i] {operator} a", "scalarop_kernel")


@context_dependent_memoize
def get_logical_not_kernel(dtype_x: Any, dtype_out: Any) -> Any:
    """out[i] = (x[i] == 0); arguments x, out, n."""
    return get_elwise_kernel([_vec(dtype_x, "x"), _vec(dtype_out, "out")],
                             "out[i] = (x[i] == 0)", "logical_not")
