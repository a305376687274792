"""Probe: linear filtering of float 2-D textures and of 3-D textures (float, uint16, half, int8)."""
import os, sys
import numpy as np
import cudakit.driver as drv
from cudakit.compiler import SourceModule
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
from test_textures_arrays import _array

K = SourceModule("""
__global__ void s2(float* out, cudaTextureObject_t t, const float* xs, const float* ys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, xs[i], ys[i]);
}
__global__ void s3(float* out, cudaTextureObject_t t, const float* xs, const float* ys,
                   const float* zs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, xs[i], ys[i], zs[i]);
}""")
rng = np.random.default_rng(3)
res = {}
n = 1 << 17
def vals(dtype, shape):
    if dtype in (np.float32, np.float16):
        return (rng.standard_normal(shape) * 3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape, dtype=np.int64).astype(dtype)
# 2-D float
img = vals(np.float32, (1, 64, 64))
ary = _array(img)
tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP, filter_mode=drv.filter_mode.LINEAR)
q = rng.integers(256, 63 * 256, (2, n))
out = np.zeros(n, np.float32)
K.get_function("s2")(drv.Out(out), np.uint64(int(tex)), drv.In((q[0] / 256).astype(np.float32)),
                     drv.In((q[1] / 256).astype(np.float32)), np.int32(n), block=(256, 1, 1), grid=(n // 256, 1))
res["f2_img"], res["f2_q"], res["f2_out"] = img, q.astype(np.int32), out
for name, dtype in [("f3", np.float32), ("u3", np.uint16), ("h3", np.float16), ("c3", np.int8)]:
    img = vals(dtype, (16, 16, 16))
    ary = _array(img)
    tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP, filter_mode=drv.filter_mode.LINEAR)
    q = rng.integers(256, 15 * 256, (3, n))
    out = np.zeros(n, np.float32)
    K.get_function("s3")(drv.Out(out), np.uint64(int(tex)), drv.In((q[0] / 256).astype(np.float32)),
                         drv.In((q[1] / 256).astype(np.float32)), drv.In((q[2] / 256).astype(np.float32)),
                         np.int32(n), block=(256, 1, 1), grid=(n // 256, 1))
    res[name + "_img"], res[name + "_q"], res[name + "_out"] = img, q.astype(np.int32), out
np.savez_compressed(os.path.join(sys.argv[1], "filter_3d_%s.npz" % drv.backend()), **res)
print("done", drv.backend())
