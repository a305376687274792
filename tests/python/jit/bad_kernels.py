"""Kernels that must be refused (or must stop) with a clear message."""

from cudakit import cuda


@cuda.jit
def undefined_name(out):
    out[0] = no_such_name  # noqa: F821


@cuda.jit
def variable_of_two_types(out):
    v = 1
    v = out
    out[0] = 1


@cuda.jit
def calls_unsupported_function(out):
    out[0] = sorted(out)


@cuda.jit
def builds_a_list(out):
    values = [1, 2, 3]
    out[0] = values[0]


@cuda.jit
def two_params(a, b):
    a[0] = b[0]


@cuda.jit("void(int32[:])")
def wants_int32(out):
    out[0] = 1


@cuda.jit
def simple(out):
    out[0] = 1


@cuda.jit(debug=True)
def writes_past_the_end(out):
    i = cuda.grid(1)
    out[i] = i


@cuda.jit(debug=True)
def raises_zero_division(out, d):
    if d == 0:
        raise ZeroDivisionError("division by zero")
    out[0] = 1 // d


@cuda.jit
def returns_a_value(out):
    return 1


@cuda.jit
def iterates_over_a_tuple(out):
    for v in (1, 2.5):  # (items of two types: literal_unroll's)
        out[0] = v


@cuda.jit
def whole_array_arithmetic(out):
    out[0] = (out + 1)[0]
