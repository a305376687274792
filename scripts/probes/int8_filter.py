"""Probe: what an int8 texture's linear filter returns (pairs, weights, 2-D)."""
import os, sys
import numpy as np
import cudakit.driver as drv
from probe_common import sample, texture_2d

rng = np.random.default_rng(1)
res = {}
# all 256 values at texel centers
img = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
ary, tex = texture_2d(img, "SIGNED_INT8")
xs = np.arange(256) + 0.5
res["centers"] = sample(tex, xs, np.full(256, 0.5))
# pairs: rows of (a, b) pairs, 16 weights each
H, P = 128, 256
pairs = rng.integers(-128, 128, (H, 2 * P), dtype=np.int8)
pairs[0, 0::2] = np.arange(-128, 128)
pairs[0, 1::2] = 127
pairs[1, 0::2] = np.arange(-128, 128)
pairs[1, 1::2] = -128
pairs[2, 0::2] = np.arange(-128, 128)
pairs[2, 1::2] = 0
ary2, tex2 = texture_2d(pairs, "SIGNED_INT8")
ks = rng.integers(0, 256, (H, P, 16))
ks[..., 0], ks[..., 1], ks[..., 2], ks[..., 3] = 1, 128, 255, 64
j = np.arange(P)[None, :, None]
r = np.arange(H)[:, None, None]
xs = (2 * j + 0.5 + ks / 256.0) + 0 * r
ys = (r + 0.5) + 0 * xs
res["pairs"] = pairs
res["pair_k"] = ks.astype(np.int16)
res["pair_out"] = sample(tex2, xs.ravel(), ys.ravel()).reshape(ks.shape)
# 2-D: random 64x64 texture, random coordinates quantized to 1/256
img3 = rng.integers(-128, 128, (64, 64), dtype=np.int8)
ary3, tex3 = texture_2d(img3, "SIGNED_INT8")
n = 1 << 19
qx = rng.integers(256, 63 * 256, n)
qy = rng.integers(256, 63 * 256, n)
res["img2d"] = img3
res["q2d"] = np.stack([qx, qy]).astype(np.int32)
res["out2d"] = sample(tex3, qx / 256.0, qy / 256.0)
out = sys.argv[1] if len(sys.argv) > 1 else "."
np.savez_compressed(os.path.join(out, "int8_filter_%s.npz" % drv.backend()), **res)
print("done", drv.backend(), {k: v.shape for k, v in res.items()})
