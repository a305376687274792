"""Texture and surface sampling on the CPU backend against numpy references
that follow the GPU's rules (CUDA C Programming Guide, "Texture Fetching"):
texel coordinates x*N for normalized coordinates, the linear filter's
weights rounded to 8 fractional bits (and their 2-D products to 1/256, as an
H200 rounds them), wrap/mirror on normalized coordinates,
clamp, border; texture references (texture<...>) bound by name."""

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit.compiler import SourceModule

# Texture references exist on the CPU backend only (CUDA 12 removed them);
# the object tests run on whichever backend the suite runs on.
cpu_only = pytest.mark.skipif(drv.backend() != "cpu",
                              reason="texture references: the CPU backend's (CUDA 12 removed "
                                     "them)")

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3


def _address(i, n, mode, normalized):
    inside = np.ones(i.shape, dtype=bool)
    if mode == BORDER:
        inside = (i >= 0) & (i < n)
        return np.clip(i, 0, n - 1), inside
    if normalized and mode == WRAP:
        return np.mod(i, n), inside
    if normalized and mode == MIRROR:
        m = np.mod(i, 2 * n)
        return np.where(m >= n, 2 * n - 1 - m, m), inside
    return np.clip(i, 0, n - 1), inside


def corner_weights(a, b, c=0):
    """The weights in 1/256 of a linear fetch's corners, keyed (x, y, z), from
    the x, y, z weights a, b, c (c = 0: a 2-D fetch), as an H200 weighs them:
    per z layer L (256 - c or c), A = round(a*L/256) for the upper x texels,
    which split it by y into round(A*b/256) and the rest; the lower x texels
    split L - A into round((L - A)*b/256), halves going down, and the rest
    (2-D: the upper-right texel a*b rounded to 1/256, the others keeping each
    axis's sum)."""
    def rounded(x, y):
        return (x * y + 128) >> 8
    weights = {}
    for z in (0, 1):
        layer = c if z else 256 - c
        upper_x = rounded(a, layer)
        upper_xy, lower_x_upper_y = rounded(upper_x, b), ((layer - upper_x) * b + 127) >> 8
        weights[(1, 1, z)], weights[(1, 0, z)] = upper_xy, upper_x - upper_xy
        weights[(0, 1, z)] = lower_x_upper_y
        weights[(0, 0, z)] = layer - upper_x - lower_x_upper_y
    return weights


def reference_2d(img, xs, ys, mode, linear, normalized, border=0.0):
    h, w = img.shape
    u = (xs * np.float32(w) if normalized else xs).astype(np.float32)
    v = (ys * np.float32(h) if normalized else ys).astype(np.float32)

    def texel(i, j):
        ii, ini = _address(i, w, mode, normalized)
        jj, inj = _address(j, h, mode, normalized)
        return np.where(ini & inj, img[jj, ii], np.float32(border)).astype(np.float32)

    if not linear:
        return texel(np.floor(u).astype(np.int64), np.floor(v).astype(np.int64))
    # The coordinate rounded to 1/256 texel, halves up, as the GPU does; a
    # normalized one first cut to 21 fractional bits and scaled exactly.
    if normalized:
        u = np.floor(xs.astype(np.float64) * 2.0 ** 21) / 2.0 ** 21 * w
        v = np.floor(ys.astype(np.float64) * 2.0 ** 21) / 2.0 ** 21 * h
    qu = np.floor(u.astype(np.float64) * 256 + 0.5).astype(np.int64) - 128
    qv = np.floor(v.astype(np.float64) * 256 + 0.5).astype(np.int64) - 128
    i0, j0 = qu // 256, qv // 256
    weights = corner_weights(qu - i0 * 256, qv - j0 * 256)
    return sum((weights[(dx, dy, 0)] / 256).astype(np.float32) * texel(i0 + dx, j0 + dy)
               for dx in (0, 1) for dy in (0, 1))


_OBJECT_KERNEL = """
__global__ void sample(float* out, cudaTextureObject_t tex, const float* xs, const float* ys,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, xs[i], ys[i]);
}
"""


def gpu_filter_tolerance(img, linear, dims):
    """The CPU backend and a GPU (measured on an H200) filter as the reference
    does: to float rounding of the weighted sum. ``dims`` is kept for callers."""
    return 1e-6 * (1 + float(np.abs(img).max()))


def _pitched(img):
    h, w = img.shape
    pitch = (w * 4 + 31) // 32 * 32
    padded = np.zeros((h, pitch // 4), dtype=np.float32)
    padded[:, :w] = img
    return drv.to_device(padded), pitch


def _run_sample(tex, xs, ys):
    f = SourceModule(_OBJECT_KERNEL).get_function("sample")
    out = np.zeros(xs.size, dtype=np.float32)
    f(drv.Out(out), np.uint64(int(tex)), drv.In(xs), drv.In(ys), np.int32(xs.size),
      block=(64, 1, 1), grid=((xs.size + 63) // 64, 1))
    return out


@pytest.mark.parametrize("mode", [WRAP, CLAMP, MIRROR, BORDER])
@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
def test_2d_object_sampling_matches_the_gpu_rules(mode, linear, normalized):
    rng = np.random.default_rng(7 + mode + 4 * linear + 8 * normalized)
    img = rng.standard_normal((13, 19)).astype(np.float32)
    memory, pitch = _pitched(img)
    n = 777
    if normalized:
        xs = rng.uniform(-1.7, 2.6, n).astype(np.float32)
        ys = rng.uniform(-1.7, 2.6, n).astype(np.float32)
    else:
        xs = rng.uniform(-5, 24, n).astype(np.float32)
        ys = rng.uniform(-5, 18, n).astype(np.float32)
    flags = drv.TRSF_NORMALIZED_COORDINATES if normalized else 0
    tex = drv.TextureObject(memory, format=drv.array_format.FLOAT, channels=1, width=19,
                            height=13, pitch=pitch, address_mode=mode,
                            filter_mode=int(linear), flags=flags,
                            border_color=(0.25, 0, 0, 0))
    got = _run_sample(tex, xs, ys)
    want = reference_2d(img, xs, ys, mode, linear, normalized, border=0.25)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=gpu_filter_tolerance(img, linear, 2))


@pytest.mark.skipif(drv.backend() != "cpu",
                    reason="what a GPU's texture unit returns for NaN coordinates is its own")
@pytest.mark.parametrize("mode", [WRAP, CLAMP, MIRROR, BORDER])
@pytest.mark.parametrize("linear", [False, True])
def test_nan_infinite_and_huge_coordinates_read_defined_texels(mode, linear):
    rng = np.random.default_rng(11)
    img = rng.standard_normal((5, 7)).astype(np.float32)
    memory, pitch = _pitched(img)
    tex = drv.TextureObject(memory, format=drv.array_format.FLOAT, channels=1, width=7,
                            height=5, pitch=pitch, address_mode=mode,
                            filter_mode=int(linear), flags=drv.TRSF_NORMALIZED_COORDINATES,
                            border_color=(0.25, 0, 0, 0))
    odd = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 0.5], dtype=np.float32)
    xs, ys = np.meshgrid(odd, odd)
    got = _run_sample(tex, xs.ravel().copy(), ys.ravel().copy())
    # Each fetch reads texels of the image or the border color: nothing from
    # outside the array, no fault. A blend of them stays within their range.
    lo, hi = min(img.min(), 0.25), max(img.max(), 0.25)
    assert np.all(np.isfinite(got))
    assert np.all((got >= lo - 1e-6) & (got <= hi + 1e-6))


def test_linear_filter_weights_have_8_fractional_bits():
    img = np.array([[0.0, 1.0]], dtype=np.float32)
    memory, pitch = _pitched(img)
    tex = drv.TextureObject(memory, format=drv.array_format.FLOAT, width=2, height=1,
                            pitch=pitch, filter_mode=drv.filter_mode.LINEAR)
    xs = np.array([0.8, 0.5 + 1 / 3], dtype=np.float32)
    got = _run_sample(tex, xs, np.full(2, 0.5, dtype=np.float32))
    # 0.3 -> 77/256, 1/3 -> 85/256: not 0.3 and 1/3
    np.testing.assert_array_equal(got, np.array([77 / 256, 85 / 256], dtype=np.float32))


# The numpy type of each texel format the tests use.
_DTYPES = {"UNSIGNED_INT8": np.uint8, "SIGNED_INT8": np.int8, "UNSIGNED_INT16": np.uint16,
           "SIGNED_INT16": np.int16, "HALF": np.float16, "FLOAT": np.float32,
           "SIGNED_INT32": np.int32}


def _array_2d(host, array_format, channels=1):
    """A 2-D driver.Array holding `host` (rows of channels * width values)."""
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = host.shape[1] // channels, host.shape[0]
    descr.format, descr.num_channels = array_format, channels
    ary = drv.Array(descr)
    copy = drv.Memcpy2D()
    copy.set_src_host(host)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = host[0].nbytes
    copy.height = host.shape[0]
    copy(aligned=True)
    return ary


_BORDER_KERNEL = """
__global__ void border(float4* f, int4* i, cudaTextureObject_t as_float,
                       cudaTextureObject_t as_int) {
  if (as_float) f[0] = tex2D<float4>(as_float, -3.0f, -3.0f);
  if (as_int) i[0] = tex2D<int4>(as_int, -3.0f, -3.0f);
}"""

# A border color as an H200 returns it (probed): held in the texel's format.
# Normalized reads of 8/16-bit integers clamp it to the format's range, cut
# its magnitude to 4 bits more than the format has and round to the format's
# steps with halves going down; half cuts toward zero and saturates; integer
# reads return the low bytes of the color's float bits, sign-extended.
_BORDERS = [
    ("UNSIGNED_INT8", (0.25, -0.5, 1.0, 2.0), (64 / 255, 0, 1, 1), (0, 0, 0, 0)),
    ("UNSIGNED_INT8", (0.1, 0.2, 0.3, 0.4), (25 / 255, 51 / 255, 76 / 255, 102 / 255),
     (0xcd, 0xcd, 0x9a, 0xcd)),
    ("UNSIGNED_INT8", (1 / 3, 2 / 3, 0.5 / 255, 1.5 / 255), (85 / 255, 170 / 255, 0, 1 / 255),
     (0xab, 0xab, 0x81, 0xc1)),
    ("SIGNED_INT8", (0.25, -0.5, 1.0, -2.5), (32 / 127, -63 / 127, 1, -1), (0, 0, 0, 0)),
    ("SIGNED_INT8", (1 / 3, -0.75, 0.7, -1e-3), (42 / 127, -95 / 127, 89 / 127, 0),
     (-85, 0, 51, 111)),
    ("UNSIGNED_INT16", (0.25, 0.001, 0.7, 1 / 3), (16384 / 65535, 65 / 65535, 45874 / 65535,
                                                   21845 / 65535), (0, 0x126f, 0x3333, 0xaaab)),
    ("SIGNED_INT16", (0.25, -0.5, -0.999, 0.001), (8192 / 32767, -16383 / 32767,
                                                   -32734 / 32767, 33 / 32767),
     (0, 0, -16777, 4719)),
    ("HALF", (300.7, -2.5, 65536.9, 0.7), (300.5, -2.5, 65504.0, 0.69970703125), None),
    ("FLOAT", (300.7, -2.5, 1e10, 0.1), (300.7, -2.5, 1e10, 0.1), None),
    ("SIGNED_INT32", (0.25, -0.5, 1.0, 2.0), None,
     tuple(int(v) for v in np.array([0.25, -0.5, 1.0, 2.0], np.float32).view(np.int32))),
]


@pytest.mark.parametrize("fmt, color, as_float, as_int", _BORDERS)
def test_border_color_is_held_in_the_texel_format(fmt, color, as_float, as_int):
    ary = _array_2d(np.ones((2, 8), dtype=_DTYPES[fmt]), getattr(drv.array_format, fmt),
                    channels=4)
    integer = fmt == "SIGNED_INT32"
    as_f = drv.TextureObject(ary, address_mode=drv.address_mode.BORDER, border_color=color,
                             flags=drv.TRSF_READ_AS_INTEGER if integer else 0)
    as_i = drv.TextureObject(ary, address_mode=drv.address_mode.BORDER, border_color=color,
                             flags=drv.TRSF_READ_AS_INTEGER) if as_int is not None else None
    f = np.zeros(4, np.float32)
    i = np.zeros(4, np.int32)
    SourceModule(_BORDER_KERNEL).get_function("border")(
        drv.Out(f), drv.Out(i), np.uint64(0 if integer else int(as_f)),
        np.uint64(int(as_i) if as_i is not None else 0), block=(1, 1, 1), grid=(1, 1))
    if as_float is not None:
        np.testing.assert_array_equal(f, np.array(as_float, np.float32))
    if as_int is not None:
        np.testing.assert_array_equal(i, np.array(as_int, np.int32))


# Linear fetches as an H200 returns them (probed, bit for bit): texels a and
# b, the weight of b in 1/256, the value returned. 8/16-bit integers blend
# the raw values in fixed point, R = a*(256-k) + b*k, rounded to 16 bits:
# unsigned 8-bit R + ((R + 128) >> 8) over 65535, signed 8-bit
# R + ((R + 64 + 16*(R >> 12)) >> 7) clamped to +-32767 over 32767, 16-bit
# (R + 128) >> 8; float and half cut both texels to 4 bits more than the
# format below the larger one's leading bit, blend exactly and round to
# nearest, halves away from zero. None of these is a float blend rounded.
_BLENDS = {
    "SIGNED_INT8": [
        (64, 64, 0, 16513 / 32767), (-64, -64, 0, -16512 / 32767), (127, 127, 0, 1.0),
        (-128, -128, 0, -1.0), (-127, -127, 0, -1.0), (121, 0, 0, 31219 / 32767),
        (-121, 0, 0, -31219 / 32767), (-1, 0, 0, -258 / 32767), (67, 66, 1, 17285 / 32767),
        (-127, 127, 1, -32511 / 32767), (64, -75, 1, 16372 / 32767),
        (-128, 127, 128, -129 / 32767), (-128, 127, 64, -16577 / 32767),
        (-60, 66, 1, -15354 / 32767), (69, -63, 1, 17669 / 32767), (46, 109, 165, 22345 / 32767),
        (-22, 32, 121, 909 / 32767), (-81, 10, 239, 1021 / 32767)],
    "UNSIGNED_INT8": [(16, 171, 226, 0.5993590950965881), (242, 238, 216, 0.9357900619506836),
                      (83, 233, 28, 0.38982224464416504)],
    "UNSIGNED_INT16": [(42621, 21064, 81, 0.5462729930877686),
                       (1975, 11190, 239, 0.16140992939472198),
                       (19552, 30890, 236, 0.4578316807746887)],
    "SIGNED_INT16": [(15000, 26367, 19, 0.4835352599620819),
                     (10134, 15945, 201, 0.44853052496910095),
                     (-5747, -25527, 198, -0.6422925591468811)],
    "HALF": [(-1.34765625, -2.78125, 96, -1.8857421875), (2.08203125, 0.03082275390625, 240,
                                                          0.158935546875),
             (0.1478271484375, -5.234375, 17, -0.209716796875),
             (0.50439453125, 0.0244903564453125, 212, 0.10693359375),
             (0.0379943847656250, 4.515625, 2, 0.0728149414062500)],
    "FLOAT": [(2.8268160820007324, -4.602869987487793, 94, 0.0987282320857048),
              (-5.171889781951904, 6.1953864097595215, 122, 0.24532778561115265),
              (-2.400911331176758, 3.333150863647461, 143, 0.8021000027656555)],
}


@pytest.mark.parametrize("fmt", sorted(_BLENDS))
def test_linear_filter_blends_as_an_h200_does(fmt):
    blends = _BLENDS[fmt]
    n = len(blends)
    host = np.zeros((1, 2 * n), dtype=_DTYPES[fmt])
    host[0, 0::2] = [a for a, _, _, _ in blends]
    host[0, 1::2] = [b for _, b, _, _ in blends]
    tex = drv.TextureObject(_array_2d(host, getattr(drv.array_format, fmt)),
                            address_mode=drv.address_mode.CLAMP,
                            filter_mode=drv.filter_mode.LINEAR)
    xs = np.array([2 * i + 0.5 + k / 256 for i, (_, _, k, _) in enumerate(blends)],
                  dtype=np.float32)
    got = _run_sample(tex, xs, np.full(n, 0.5, dtype=np.float32))
    want = np.array([w for _, _, _, w in blends]).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_linear_fetch_of_uchar4_reads_normalized_floats_and_integers():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, (301, 4), dtype=np.uint8)
    src = """
    __global__ void fetch(float4* f, uchar4* u, cudaTextureObject_t asf, cudaTextureObject_t asi,
                          int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n + 3) { f[i] = tex1Dfetch<float4>(asf, i); u[i] = tex1Dfetch<uchar4>(asi, i); }
    }"""
    f = SourceModule(src).get_function("fetch")
    memory = drv.to_device(data)
    as_float = drv.TextureObject(memory, format=drv.array_format.UNSIGNED_INT8, channels=4,
                                 bytes=data.nbytes)
    as_int = drv.TextureObject(memory, format=drv.array_format.UNSIGNED_INT8, channels=4,
                               bytes=data.nbytes, flags=drv.TRSF_READ_AS_INTEGER)
    got_f = np.zeros((304, 4), dtype=np.float32)
    got_u = np.zeros((304, 4), dtype=np.uint8)
    f(drv.Out(got_f), drv.Out(got_u), as_float, np.uint64(int(as_int)),  # the object itself
      np.int32(301), block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_allclose(got_f[:301], data.astype(np.float32) / np.float32(255), rtol=1e-7)
    np.testing.assert_array_equal(got_u[:301], data)
    assert not got_f[301:].any() and not got_u[301:].any()  # out of range reads 0


@cpu_only
def test_2d_texture_reference_with_pitch_memory_and_signed_normalized_read():
    rng = np.random.default_rng(11)
    img = rng.integers(-128, 128, (7, 45), dtype=np.int8)
    src = """
    texture<signed char, 2, cudaReadModeNormalizedFloat> tex;
    __global__ void copy(float* out, int w, int h) {
      int x = threadIdx.x, y = blockIdx.x;
      if (x < w && y < h) out[y * w + x] = tex2D(tex, x + 0.5f, y + 0.5f);
    }"""
    mod = SourceModule(src)
    ref = mod.get_texref("tex")
    pitch = 64
    padded = np.zeros((7, pitch), dtype=np.int8)
    padded[:, :45] = img
    memory = drv.to_device(padded)
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = 45, 7
    descr.format, descr.num_channels = drv.array_format.SIGNED_INT8, 1
    ref.set_address_2d(memory, descr, pitch)
    assert ref.get_format() == (drv.array_format.SIGNED_INT8, 1)
    out = np.zeros((7, 45), dtype=np.float32)
    mod.get_function("copy")(drv.Out(out), np.int32(45), np.int32(7), block=(64, 1, 1),
                             grid=(7, 1), texrefs=[ref])
    want = np.maximum(img.astype(np.float32) / np.float32(127), np.float32(-1))
    np.testing.assert_allclose(out, want, rtol=1e-7)


@cpu_only
def test_unbound_reference_faults_with_a_clear_message():
    mod = SourceModule("""
    texture<float, 1> tex;
    __global__ void k(float* out) { out[0] = tex1Dfetch(tex, 0); }""")
    with pytest.raises(drv.Error, match="not bound"):
        mod.get_function("k")(drv.Out(np.zeros(1, np.float32)), block=(1, 1, 1))
        drv.Context.synchronize()


@cpu_only
def test_reference_bad_input_is_refused_clearly():
    mod = SourceModule("texture<float, 1> tex;\n__global__ void k(float* o) { o[0] = 1; }")
    with pytest.raises(drv.ArgumentError, match="no texture reference"):
        mod.get_texref("missing")
    ref = mod.get_texref("tex")
    with pytest.raises(drv.ArgumentError, match="1, 2 or 4"):
        ref.set_format(drv.array_format.FLOAT, 3)
    with pytest.raises(drv.ArgumentError, match="address_mode"):
        ref.set_address_mode(0, 7)
    with pytest.raises(drv.ArgumentError, match="TRSF"):
        ref.set_flags(0x100)
    with pytest.raises(drv.NotSupported, match="texrefs"):
        mod.get_function("k")(drv.Out(np.zeros(1, np.float32)), block=(1, 1, 1),
                              texrefs=["tex"])


def test_object_bad_input_is_refused_clearly():
    memory = drv.mem_alloc(1024)
    with pytest.raises(drv.ArgumentError, match="linear filtering"):
        drv.TextureObject(memory, format=drv.array_format.SIGNED_INT32, bytes=1024,
                          filter_mode=drv.filter_mode.LINEAR, flags=drv.TRSF_READ_AS_INTEGER)
    with pytest.raises(drv.ArgumentError, match=r"\d+-byte aligned"):
        drv.TextureObject(int(memory) + 4, format=drv.array_format.FLOAT, bytes=64)
    with pytest.raises(drv.ArgumentError, match="multiple"):
        drv.TextureObject(memory, format=drv.array_format.FLOAT, bytes=10)
    with pytest.raises(drv.ArgumentError, match="pitch"):
        drv.TextureObject(memory, format=drv.array_format.FLOAT, width=10, height=2, pitch=20)


@cpu_only
def test_cpu_driver_version_knob(monkeypatch):
    monkeypatch.setenv("CUDAKIT_CPU_DRIVER_VERSION", "11080")
    assert drv.get_driver_version() == 11080
    monkeypatch.setenv("CUDAKIT_CPU_DRIVER_VERSION", "eleven")
    with pytest.raises(drv.ArgumentError, match="CUDAKIT_CPU_DRIVER_VERSION"):
        drv.get_driver_version()
