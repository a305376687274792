"""Textures and surfaces over CUDA arrays (driver.Array): 3-D and layered
sampling, half read as float, surface boundary modes, and references bound
to arrays, against numpy references of the GPU's rules (see
test_textures_cpu.py for the 2-D rules and the reference sampler)."""

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit.compiler import SourceModule
from test_textures_cpu import (CLAMP, WRAP, corner_weights, cpu_only, gpu_filter_tolerance,
                               reference_2d)


def _array(host, layered=False, surface=False):
    """A driver.Array holding `host` (depth/layers, height, width), filled with Memcpy3D."""
    d, h, w = host.shape
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, d
    descr.format = drv.array_format.HALF if host.dtype == np.float16 else \
        drv.dtype_to_array_format(host.dtype)
    descr.num_channels = 1
    descr.flags = (drv.array3d_flags.ARRAY3D_LAYERED if layered else 0) | \
        (drv.array3d_flags.SURFACE_LDST if surface else 0)
    ary = drv.Array(descr)
    copy = drv.Memcpy3D()
    copy.set_src_host(np.ascontiguousarray(host))
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = w * host.dtype.itemsize
    copy.src_height = copy.height = h
    copy.depth = d
    copy()
    return ary


def _read_array(ary, shape, dtype):
    out = np.empty(shape, dtype=dtype)
    copy = drv.Memcpy3D()
    copy.set_src_array(ary)
    copy.set_dst_host(out)
    copy.width_in_bytes = copy.dst_pitch = shape[2] * np.dtype(dtype).itemsize
    copy.dst_height = copy.height = shape[1]
    copy.depth = shape[0]
    copy()
    return out


_SAMPLERS = """
__global__ void sample3d(float* out, cudaTextureObject_t t, const float* xs, const float* ys,
                         const float* zs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, xs[i], ys[i], zs[i]);
}
__global__ void sample_layered(float* out, cudaTextureObject_t t, const float* xs,
                               const float* ys, const int* layers, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, xs[i], ys[i], layers[i]);
}
"""


def _sample_3d(tex, xs, ys, zs):
    """tex3D<float> of `tex` at each (xs, ys, zs) (float32 arrays)."""
    out = np.zeros(xs.size, dtype=np.float32)
    SourceModule(_SAMPLERS).get_function("sample3d")(
        drv.Out(out), tex, drv.In(xs), drv.In(ys), drv.In(zs), np.int32(xs.size),
        block=(128, 1, 1), grid=((xs.size + 127) // 128, 1))
    return out


def test_3d_point_sampling_from_an_array():
    rng = np.random.default_rng(31)
    vol = rng.standard_normal((5, 7, 9)).astype(np.float32)
    ary = _array(vol)
    tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP)
    n = 501
    xs = rng.uniform(-2, 11, n).astype(np.float32)
    ys = rng.uniform(-2, 9, n).astype(np.float32)
    zs = rng.uniform(-2, 7, n).astype(np.float32)
    out = _sample_3d(tex, xs, ys, zs)
    i = np.clip(np.floor(xs).astype(int), 0, 8)
    j = np.clip(np.floor(ys).astype(int), 0, 6)
    k = np.clip(np.floor(zs).astype(int), 0, 4)
    np.testing.assert_array_equal(out, vol[k, j, i])


# The eight weights (in 1/256, corner bit 0 = x, 1 = y, 2 = z) of a 3-D linear
# fetch with x, y, z weights (a, b, c), as an H200 weighs them (probed; the
# rule: test_textures_cpu.corner_weights).
_WEIGHTS_3D = [((52, 169, 148), (29, 7, 57, 15, 40, 10, 78, 20)),
               ((3, 16, 169), (81, 1, 5, 0, 157, 2, 10, 0)),
               ((6, 153, 65), (75, 2, 112, 2, 25, 1, 38, 1)),
               ((226, 64, 37), (20, 145, 6, 48, 3, 25, 1, 8)),
               ((0, 128, 1), None)]


def test_3d_linear_filter_weights_as_an_h200_weighs_them():
    abc = np.array([at for at, _ in _WEIGHTS_3D], dtype=np.float64).T
    xs, ys, zs = [(0.5 + abc[d] / 256).astype(np.float32) for d in range(3)]
    n = xs.size
    got = np.zeros((8, n), dtype=np.int64)
    for corner in range(8):  # one texel of 1.0 reads its weight / 256
        vol = np.zeros((2, 2, 2), dtype=np.float32)
        vol[corner >> 2, (corner >> 1) & 1, corner & 1] = 1.0
        ary = _array(vol)
        tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP,
                                filter_mode=drv.filter_mode.LINEAR)
        got[corner] = np.round(_sample_3d(tex, xs, ys, zs).astype(np.float64) * 256)
    for i, (_, want) in enumerate(_WEIGHTS_3D):
        if want is not None:
            assert tuple(got[:, i]) == want
    # a = 0, b = 128, c = 1: the lower x texels split 255 by y, 127.5 going down
    assert tuple(got[:, -1]) == (128, 0, 127, 0, 1, 0, 0, 0)


def test_3d_clamp_filters_from_the_coordinate_clamped_to_the_outer_texels():
    # Measured on an H200: a clamped dimension filters from the texel
    # coordinate clamped to [0.5, size - 0.5] (its weight 0 past the edge),
    # which moves 3-D weights between layers. Unsigned 16-bit texels blend
    # exactly: (sum(w * v) + 128) >> 8 over 65535.
    rng = np.random.default_rng(41)
    vol = rng.integers(0, 65536, (5, 6, 7)).astype(np.uint16)
    tex = drv.TextureObject(_array(vol), address_mode=drv.address_mode.CLAMP,
                            filter_mode=drv.filter_mode.LINEAR)
    n = 3001
    q = rng.integers(-4 * 256, 12 * 256, (3, n))  # texel coordinates in 1/256
    xs, ys, zs = [(q[d] / 256).astype(np.float32) for d in range(3)]
    out = _sample_3d(tex, xs, ys, zs)
    sizes = (7, 6, 5)
    base, frac = [], []
    for d in range(3):
        clamped = np.clip(q[d], 128, sizes[d] * 256 - 128) - 128
        base.append(clamped >> 8)
        frac.append(clamped & 255)
    blend = 0
    for (dx, dy, dz), w in corner_weights(*frac).items():
        blend = blend + w * vol[np.minimum(base[2] + dz, 4), np.minimum(base[1] + dy, 5),
                                np.minimum(base[0] + dx, 6)].astype(np.int64)
    want = (((blend + 128) >> 8) / 65535).astype(np.float32)
    np.testing.assert_array_equal(out, want)


def test_layered_linear_filtering_per_layer():
    rng = np.random.default_rng(32)
    layers = rng.standard_normal((4, 6, 11)).astype(np.float32)
    ary = _array(layers, layered=True)
    tex = drv.TextureObject(ary, address_mode=drv.address_mode.WRAP,
                            filter_mode=drv.filter_mode.LINEAR,
                            flags=drv.TRSF_NORMALIZED_COORDINATES)
    n = 400
    xs = rng.uniform(-1.5, 2.5, n).astype(np.float32)
    ys = rng.uniform(-1.5, 2.5, n).astype(np.float32)
    which = rng.integers(0, 4, n).astype(np.int32)
    out = np.zeros(n, dtype=np.float32)
    SourceModule(_SAMPLERS).get_function("sample_layered")(
        drv.Out(out), tex, drv.In(xs), drv.In(ys), drv.In(which), np.int32(n),
        block=(128, 1, 1), grid=(4, 1))
    want = np.empty(n, dtype=np.float32)
    for layer in range(4):
        sel = which == layer
        want[sel] = reference_2d(layers[layer], xs[sel], ys[sel], WRAP, True, True)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=gpu_filter_tolerance(layers, True, 2))


def test_half_array_reads_as_float():
    rng = np.random.default_rng(33)
    vol = rng.standard_normal((1, 3, 17)).astype(np.float16)
    # a 2-D array (depth 0): tex2D of a 3-D array of depth 1 reads zeros on a GPU
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = 17, 3
    descr.format, descr.num_channels = drv.array_format.HALF, 1
    ary = drv.Array(descr)
    copy = drv.Memcpy2D()
    copy.set_src_host(np.ascontiguousarray(vol[0]))
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = 17 * 2
    copy.height = 3
    copy(aligned=True)
    tex = drv.TextureObject(ary)
    src = """
    __global__ void k(float* out, cudaTextureObject_t t, int w, int h) {
      int x = threadIdx.x, y = blockIdx.x;
      if (x < w) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
    }"""
    out = np.zeros((3, 17), dtype=np.float32)
    SourceModule(src).get_function("k")(drv.Out(out), tex, np.int32(17), np.int32(3),
                                        block=(32, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(out, vol[0].astype(np.float32))


_SURFACE = """
__global__ void fill(cudaSurfaceObject_t s, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) surf3Dwrite(float(x + 100 * y + 10000 * z), s, x * 4, y, z);
}
__global__ void edges(float* out, cudaSurfaceObject_t s, int w) {
  out[0] = surf3Dread<float>(s, (w + 3) * 4, 0, 0, cudaBoundaryModeClamp);
  out[1] = surf3Dread<float>(s, -8, 0, 0, cudaBoundaryModeZero);
  surf3Dwrite(-1.0f, s, w * 4, 0, 0, cudaBoundaryModeZero);  // dropped
}
__global__ void trap(cudaSurfaceObject_t s, int w) { surf3Dwrite(1.0f, s, w * 4, 0, 0); }
"""


def test_surface_object_writes_and_boundary_modes():
    w, h, d = 13, 4, 3
    ary = _array(np.zeros((d, h, w), dtype=np.float32), surface=True)
    surf = drv.SurfaceObject(ary)
    mod = SourceModule(_SURFACE)
    mod.get_function("fill")(surf, np.int32(w), np.int32(h), np.int32(d), block=(32, 1, 1),
                              grid=(h, d))
    z, y, x = np.meshgrid(np.arange(d), np.arange(h), np.arange(w), indexing="ij")
    want = (x + 100 * y + 10000 * z).astype(np.float32)
    np.testing.assert_array_equal(_read_array(ary, (d, h, w), np.float32), want)
    out = np.full(2, 7.0, dtype=np.float32)
    mod.get_function("edges")(drv.Out(out), surf, np.int32(w), block=(1, 1, 1))
    np.testing.assert_array_equal(out, [want[0, 0, w - 1], 0.0])
    np.testing.assert_array_equal(_read_array(ary, (d, h, w), np.float32), want)


@cpu_only
def test_surface_trap_mode_faults_naming_the_access():
    ary = _array(np.zeros((2, 2, 5), dtype=np.float32), surface=True)
    surf = drv.SurfaceObject(ary)
    with pytest.raises(drv.Error, match="surf3Dwrite.*out of bounds"):
        SourceModule(_SURFACE).get_function("trap")(surf, np.int32(5), block=(1, 1, 1))
        drv.Context.synchronize()


@cpu_only
def test_2d_fetch_from_a_3d_array_is_refused_with_what_to_do():
    # An H200 reads 0 from tex2D on a 3-D array (even of depth 1): the CPU
    # backend stops with the way out instead of reading plausible texels.
    vol = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    tex = drv.TextureObject(_array(vol), filter_mode=drv.filter_mode.LINEAR)
    src = """
    __global__ void two(float* out, cudaTextureObject_t t) { out[0] = tex2D<float>(t, 1.5f, 1.5f); }
    __global__ void three(float* out, cudaTextureObject_t t) {
      out[0] = tex3D<float>(t, 1.5f, 1.5f, 0.5f);
    }"""
    mod = SourceModule(src)
    out = np.zeros(1, dtype=np.float32)
    with pytest.raises(drv.Error, match="tex2D: the texture is a 3-D array.*tex3D.*depth 0"):
        mod.get_function("two")(drv.Out(out), tex, block=(1, 1, 1))
        drv.Context.synchronize()
    mod.get_function("three")(drv.Out(out), tex, block=(1, 1, 1))
    assert out[0] == vol[0, 1, 1]


def test_surface_object_needs_the_surface_flag():
    ary = _array(np.zeros((2, 2, 5), dtype=np.float32))
    with pytest.raises(drv.ArgumentError, match="surface"):
        drv.SurfaceObject(ary)


@cpu_only
def test_2d_reference_bound_to_an_array_with_normalized_clamp_and_linear_filter():
    rng = np.random.default_rng(34)
    img = rng.standard_normal((10, 14)).astype(np.float32)
    mod = SourceModule("""
    texture<float, 2> img;
    __global__ void k(float* out, const float* xs, const float* ys, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = tex2D(img, xs[i], ys[i]);
    }""")
    ref = mod.get_texref("img")
    drv.bind_array_to_texref(drv.matrix_to_array(img, order="C"), ref)
    ref.set_filter_mode(drv.filter_mode.LINEAR)
    ref.set_flags(drv.TRSF_NORMALIZED_COORDINATES)
    assert ref.get_filter_mode() == drv.filter_mode.LINEAR
    n = 300
    xs = rng.uniform(-0.3, 1.3, n).astype(np.float32)
    ys = rng.uniform(-0.3, 1.3, n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    mod.get_function("k")(drv.Out(out), drv.In(xs), drv.In(ys), np.int32(n), block=(128, 1, 1),
                          grid=(3, 1), texrefs=[ref])
    np.testing.assert_allclose(out, reference_2d(img, xs, ys, CLAMP, True, True), rtol=1e-6,
                               atol=1e-6)


def test_gather_returns_the_bilinear_footprint_in_the_gpus_order():
    rng = np.random.default_rng(35)
    img = rng.standard_normal((8, 12)).astype(np.float32)
    d, h, w = 1, 8, 12
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, 0
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    descr.flags = drv.array3d_flags.TEXTURE_GATHER
    ary = drv.Array(descr)
    copy = drv.Memcpy2D()
    copy.set_src_host(img)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = w * 4
    copy.height = h
    copy(aligned=True)
    tex = drv.TextureObject(ary)  # clamp
    n = 200
    xs = rng.uniform(-2, w + 2, n).astype(np.float32)
    ys = rng.uniform(-2, h + 2, n).astype(np.float32)
    src = """
    __global__ void k(float4* out, cudaTextureObject_t t, const float* xs, const float* ys,
                      int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = tex2Dgather<float4>(t, xs[i], ys[i], 0);
    }"""
    out = np.zeros((n, 4), dtype=np.float32)
    SourceModule(src).get_function("k")(drv.Out(out), tex, drv.In(xs), drv.In(ys), np.int32(n),
                                        block=(128, 1, 1), grid=(2, 1))
    # the GPU rounds the coordinate to 1/256 texel (halves up) before taking the lower texel
    i = ((np.floor(xs.astype(np.float64) * 256 + 0.5) - 128) // 256).astype(int)
    j = ((np.floor(ys.astype(np.float64) * 256 + 0.5) - 128) // 256).astype(int)

    def at(ii, jj):
        return img[np.clip(jj, 0, h - 1), np.clip(ii, 0, w - 1)]

    want = np.stack([at(i, j + 1), at(i + 1, j + 1), at(i + 1, j), at(i, j)], axis=1)
    np.testing.assert_array_equal(out, want)
