"""Probe: the 8 corner weights of a 3-D linear fetch, read from float textures holding 1 and 4096."""
import os, sys
import numpy as np
import cudakit.driver as drv
from probe_common import array_3d as _array, sample
rng = np.random.default_rng(5)
A, B = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
parts = [np.stack([A.ravel(), B.ravel(), np.full(A.size, cz)]) for cz in (1, 37, 128, 200, 255)]
parts.append(rng.integers(0, 256, (3, 200000)))
abc = np.concatenate(parts, axis=1)
n = abc.shape[1]
xs, ys, zs = [(0.5 + abc[d] / 256.0).astype(np.float32) for d in range(3)]
weights = np.zeros((8, n), np.uint16)
for p in range(4):
    img = np.zeros((2, 2, 2), np.float32)
    lo, hi = 2 * p, 2 * p + 1          # corner k: x = k & 1, y = (k >> 1) & 1, z = k >> 2
    for k, v in ((lo, 1.0), (hi, 4096.0)):
        img[k >> 2, (k >> 1) & 1, k & 1] = v
    ary = _array(img)
    tex = drv.TextureObject(ary, address_mode=drv.address_mode.CLAMP, filter_mode=drv.filter_mode.LINEAR)
    out = sample(tex, xs, ys, zs)
    r = np.round(out.astype(np.float64) * 256).astype(np.int64)
    weights[hi] = r // 4096
    weights[lo] = r % 4096
    assert np.allclose(out.astype(np.float64) * 256, r, atol=1e-3), "float blend not exact"
np.savez_compressed(os.path.join(sys.argv[1], "weights_3d_%s.npz" % drv.backend()), abc=abc.astype(np.uint8), w=weights)
print("done", drv.backend(), "weight sums", np.unique(weights.astype(np.int64).sum(0)))
