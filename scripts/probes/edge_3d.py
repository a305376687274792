"""Probe: 3-D linear fetches at coordinates outside the texture, each address mode."""
import os, sys
import numpy as np
import cudakit.driver as drv
from probe_common import array_3d as _array, sample
rng = np.random.default_rng(9)
res = {}
n = 1 << 16
D, H, W = 5, 6, 7
for name, dtype in [("u", np.uint16), ("f", np.float32)]:
    img = rng.integers(0, 65536, (D, H, W)).astype(np.uint16) if dtype == np.uint16 else \
        (rng.standard_normal((D, H, W)) * 3).astype(np.float32)
    ary = _array(img)
    res[name + "_img"] = img
    for mode in ["CLAMP", "BORDER", "WRAP", "MIRROR"]:
        for normalized in ([False, True] if mode in ("CLAMP", "BORDER") else [True]):
            tex = drv.TextureObject(ary, address_mode=getattr(drv.address_mode, mode),
                                    filter_mode=drv.filter_mode.LINEAR,
                                    flags=drv.TRSF_NORMALIZED_COORDINATES if normalized else 0)
            q = rng.integers(-4 * 256, 12 * 256, (3, n))  # texel coordinates in 1/256
            sizes = np.array([W, H, D])[:, None]
            coords = (q / 256.0) / (sizes if normalized else 1)
            coords = coords.astype(np.float32)
            out = sample(tex, *coords)
            key = "%s_%s_%d" % (name, mode, normalized)
            res[key + "_c"], res[key + "_out"] = coords, out
np.savez_compressed(os.path.join(sys.argv[1], "edge_3d_%s.npz" % drv.backend()), **res)
print("done", drv.backend())
