"""What the texture probes share: a 2-D CUDA array texture, and launches of a
2-D or 3-D linear sampler over float coordinates."""
import os
import sys

import numpy as np

import cudakit.driver as drv
from cudakit.compiler import SourceModule

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "python"))
from test_textures_arrays import _array  # noqa: E402  (a 3-D or layered array from numpy)

_SAMPLERS = SourceModule("""
__global__ void s2(float* out, cudaTextureObject_t t, const float* xs, const float* ys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, xs[i], ys[i]);
}
__global__ void s3(float* out, cudaTextureObject_t t, const float* xs, const float* ys,
                   const float* zs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, xs[i], ys[i], zs[i]);
}""")
array_3d = _array


def texture_2d(host, fmt, mode="CLAMP"):
    """A linear-filtered texture over a 2-D CUDA array of `host` (one channel,
    format `fmt`, an array_format name); returns (array, texture)."""
    h, w = host.shape
    descr = drv.ArrayDescriptor()
    descr.width, descr.height, descr.num_channels = w, h, 1
    descr.format = getattr(drv.array_format, fmt)
    ary = drv.Array(descr)
    copy = drv.Memcpy2D()
    copy.set_src_host(host)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = host[0].nbytes
    copy.height = h
    copy(aligned=True)
    tex = drv.TextureObject(ary, address_mode=getattr(drv.address_mode, mode),
                            filter_mode=drv.filter_mode.LINEAR)
    return ary, tex


def sample(tex, *coords):
    """tex2D (two coordinate arrays) or tex3D (three) at every coordinate."""
    n = coords[0].size
    out = np.zeros(n, np.float32)
    kernel = _SAMPLERS.get_function("s%d" % len(coords))
    kernel(drv.Out(out), np.uint64(int(tex)), *[drv.In(c.astype(np.float32)) for c in coords],
           np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    return out
