"""Probe: linear filter results of uint8/int16/uint16/half textures (pairs, 2-D)."""
import os, sys
import numpy as np
import cudakit.driver as drv
from probe_common import sample, texture_2d

FORMATS = {"UNSIGNED_INT8": np.uint8, "SIGNED_INT16": np.int16, "UNSIGNED_INT16": np.uint16,
           "HALF": np.float16, "SIGNED_INT8": np.int8, "FLOAT": np.float32}

def values(dtype, rng, shape):
    if dtype in (np.float16, np.float32):
        return (rng.standard_normal(shape) * 3).astype(dtype) if dtype == np.float32 else rng.standard_normal(shape).astype(np.float16) * np.float16(3)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape, dtype=np.int64).astype(dtype)


rng = np.random.default_rng(2)
res = {}
for fmt, dtype in FORMATS.items():
    H, P = 64, 256
    pairs = values(dtype, rng, (H, 2 * P))
    ary2, tex2 = texture_2d(pairs, fmt)
    ks = rng.integers(0, 256, (H, P, 8))
    j = np.arange(P)[None, :, None]
    r = np.arange(H)[:, None, None]
    xs = (2 * j + 0.5 + ks / 256.0) + 0 * r
    ys = (r + 0.5) + 0 * xs
    res[fmt + "_pairs"] = pairs
    res[fmt + "_k"] = ks.astype(np.int16)
    res[fmt + "_out"] = sample(tex2, xs.ravel(), ys.ravel()).reshape(ks.shape)
    img = values(dtype, rng, (64, 64))
    ary3, tex3 = texture_2d(img, fmt)
    n = 1 << 17
    qx = rng.integers(256, 63 * 256, n)
    qy = rng.integers(256, 63 * 256, n)
    res[fmt + "_img"] = img
    res[fmt + "_q"] = np.stack([qx, qy]).astype(np.int32)
    res[fmt + "_out2d"] = sample(tex3, qx / 256.0, qy / 256.0)
out = sys.argv[1] if len(sys.argv) > 1 else "."
np.savez_compressed(os.path.join(out, "filter_formats_%s.npz" % drv.backend()), **res)
print("done", drv.backend())
