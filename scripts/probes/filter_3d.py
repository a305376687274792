"""Probe: linear filtering of 3-D textures (float, uint16, half, int8)."""
import os, sys
import numpy as np
import cudakit.driver as drv
from probe_common import array_3d as _array, sample

rng = np.random.default_rng(3)
res = {}
n = 1 << 17
def vals(dtype, shape):
    if dtype in (np.float32, np.float16):
        return (rng.standard_normal(shape) * 3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape, dtype=np.int64).astype(dtype)
# (2-D float fetches: filter_formats.py; tex2D on a depth-1 3-D array reads 0 on a GPU)
for name, dtype in [("f3", np.float32), ("u3", np.uint16), ("h3", np.float16), ("c3", np.int8)]:
    img = vals(dtype, (16, 16, 16))
    ary = _array(img)
    tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP, filter_mode=drv.filter_mode.LINEAR)
    q = rng.integers(256, 15 * 256, (3, n))
    out = sample(tex, *(q / 256))
    res[name + "_img"], res[name + "_q"], res[name + "_out"] = img, q.astype(np.int32), out
np.savez_compressed(os.path.join(sys.argv[1], "filter_3d_%s.npz" % drv.backend()), **res)
print("done", drv.backend())
