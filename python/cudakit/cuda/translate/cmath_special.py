"""Python's cmath special values for complex functions in kernels.

The array layer's complex functions follow C99 Annex G, as NumPy does.
CPython's cmath keeps its own tables for an infinite or NaN component (a
7 x 7 table per function, by the kind of each part: -inf, negative, -0, +0,
positive, +inf, NaN), which differ from Annex G in a few cells (the sign of
a zero beside a NaN, `tanh(nanj)`, `cmath.exp(-inf-infj)`). The `cmath`
functions in kernels take those cells from the interpreter's own cmath (read
once, and only where two different finite values agree: a cell whose result
depends on the finite part keeps Annex G's formula, as CPython computes it
too); finite arguments go to the array layer's functions unchanged.
"""

from __future__ import annotations

import cmath
import math
from functools import lru_cache

# The kinds of a component, in CPython's order, and values of each (the
# finite kinds: one in each quadrant, to tell constant cells from computed ones).
_QUADRANTS = (0.75, 2.5, 4.0, 5.5)
_KINDS = ((-math.inf,), tuple(-v for v in _QUADRANTS), (-0.0,), (0.0,), _QUADRANTS,
          (math.inf,), (math.nan,))

# cmath function -> the array layer's function its finite arguments take.
TABLED = {"exp": "cudakit_cexp", "log": "cudakit_clog", "sqrt": "cudakit_csqrt",
          "acos": "cudakit_carccos", "acosh": "cudakit_carccosh",
          "asinh": "cudakit_carcsinh", "atanh": "cudakit_carctanh",
          "cosh": "cudakit_ccosh", "sinh": "cudakit_csinh", "tanh": "cudakit_ctanh"}
# CPython's identities: cos(z) = cosh(iz), sin(z) = -i sinh(iz), ...
ROTATED = {"cos": ("cosh", False), "sin": ("sinh", True), "tan": ("tanh", True),
           "asin": ("asinh", True), "atan": ("atanh", True)}

# CPython's tanh of a finite z (the array layer's is Kahan's): the two differ
# by a few ulps in a tiny imaginary part (tanh(-pi - pi j)); this one gives
# Python's digits. Beyond log(max / 4), cosh overflows: the asymptotic form.
_TANH_FINITE = r"""template <class C>
__device__ inline C ck_cmath_tanh_finite(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  const R large = sizeof(R) == 4 ? (R)87.33654475 : (R)708.3964185322641;
  if (cudakit_fabs(x) > large)
    return cudakit_cmake<C>(cudakit_copysign((R)1, x),
                            4 * cudakit_sin(y) * cudakit_cos(y) * cudakit_exp(-2 * cudakit_fabs(x)));
  const R tx = cudakit_tanh(x), ty = cudakit_tan(y), cx = 1 / cudakit_cosh(x);
  const R txty = tx * ty, denom = 1 + txty * txty;
  return cudakit_cmake<C>(tx * (1 + ty * ty) / denom, ((ty / denom) * cx) * cx);
}
"""

_KIND_HELPER = r"""// CPython's kinds of a complex part (its cmath tables' index):
// -inf, negative, -0, +0, positive, +inf, NaN.
template <class R>
__device__ inline int ck_cmath_kind(R v) {
  if (v != v) return 6;
  if (v - v != 0) return v < 0 ? 0 : 5;
  if (v == 0) return cudakit_copysign((R)1, v) < 0 ? 2 : 3;
  return v < 0 ? 1 : 4;
}
"""


def _literal(value: float) -> str:
    if math.isnan(value):
        return "(R)__int_as_float(0x7fc00000)"  # (NVRTC has no NAN / INFINITY)
    if math.isinf(value):
        return ("" if value > 0 else "-") + "(R)__int_as_float(0x7f800000)"
    if value == 0:
        return "-(R)0" if math.copysign(1.0, value) < 0 else "(R)0"
    return f"(R){value!r}"


def _same(a: complex, b: complex) -> bool:
    return all(x == y and math.copysign(1, x) == math.copysign(1, y)
               or (math.isnan(x) and math.isnan(y))
               for x, y in ((a.real, b.real), (a.imag, b.imag)))


def _cells(function) -> dict[int, complex]:
    """Cell (7 * kind of re + kind of im) -> cmath's value, for the cells
    with an infinite or NaN part that are constant and do not raise."""
    cells = {}
    for i, reals in enumerate(_KINDS):
        for j, imags in enumerate(_KINDS):
            if math.isfinite(reals[0]) and math.isfinite(imags[0]):
                continue
            try:
                values = [function(complex(re, im)) for re in reals for im in imags]
            except (ValueError, OverflowError):
                continue  # cmath raises: the kernel gives Annex G's value
            if all(_same(values[0], v) for v in values[1:]):
                cells[7 * i + j] = values[0]
    return cells


def _switch(cells: dict[int, complex], make: str, indent: str = "  ") -> str:
    """A switch over the kinds of (re, im) returning each constant cell."""
    by_value: dict[tuple[str, str], list[int]] = {}
    for cell, value in cells.items():
        by_value.setdefault((_literal(value.real), _literal(value.imag)), []).append(cell)
    cases = "\n".join(
        f"{indent}  {' '.join(f'case {c}:' for c in group)} return {make}({re}, {im});"
        for (re, im), group in by_value.items())
    return (f"{indent}switch (7 * ck_cmath_kind(re) + ck_cmath_kind(im)) {{\n{cases}\n"
            f"{indent}  default: break;\n{indent}}}\n")


@lru_cache(maxsize=None)
def helper_text(name: str) -> str:
    """The C++ of ck_cmath_<name> (a rotated one calls its base's)."""
    if name in ROTATED:
        base, back = ROTATED[name]
        rotated = "cudakit_mul_minus_i(" if back else "("
        return (f"template <class C>\n"
                f"__device__ inline C ck_cmath_{name}(C z) {{ return {rotated}"
                f"ck_cmath_{base}(cudakit_mul_i(z))); }}\n")
    if name == "rect":  # cmath.rect(r, phi), in double
        cells = _cells(lambda z: cmath.rect(z.real, z.imag))
        return ("__device__ inline cudakit_complex128 ck_cmath_rect(double re, double im) {\n"
                "  typedef double R;\n"
                "  if (!(re - re == 0 && im - im == 0)) {\n"
                f"{_switch(cells, 'cudakit_c128', '    ')}  }}\n"
                "  // phi = 0: r * phi keeps the sign of a zero phi, as CPython's.\n"
                "  if (im == 0) return cudakit_c128(re, re * im);\n"
                "  return cudakit_c128(re * cos(im), re * sin(im));\n}\n")
    finite, before = TABLED[name], ""
    if name == "tanh":
        finite, before = "ck_cmath_tanh_finite", _TANH_FINITE
    return before + (f"template <class C>\n__device__ inline C ck_cmath_{name}(C z) {{\n"
            f"  typedef typename cudakit_complex_traits<C>::real R;\n"
            f"  const R re = z.re, im = z.im;\n"
            f"  if (re - re == 0 && im - im == 0) return {finite}(z);\n"
            f"{_switch(_cells(getattr(cmath, name)), 'cudakit_cmake<C>')}"
            f"  return {finite}(z);\n}}\n")


def need(program, name: str) -> str:
    """Adds ck_cmath_<name> (and what it calls) to `program`; its C++ name."""
    from . import program as program_module
    if name in ROTATED:
        need(program, ROTATED[name][0])
    program_module.HELPERS.setdefault("cmath_kind", _KIND_HELPER)
    program.need_helper("cmath_kind")
    key = f"cmath_{name}"
    program_module.HELPERS.setdefault(key, helper_text(name))
    program.need_helper(key)
    return f"ck_cmath_{name}"
