"""Texture and surface objects on a GPU, and the CPU backend's sampling held
to the GPU's: the same kernel, array, descriptor and random coordinates run
here on the GPU and in a child process on the CPU backend."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cudakit.driver as drv

_SAMPLE = r'''
import json, sys
import numpy as np
import cudakit.autoinit
import cudakit.driver as drv
from cudakit.compiler import SourceModule

def sample(img, xs, ys, mode, filt, flags):
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = img.shape[1], img.shape[0]
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    ary = drv.Array(descr)
    copy = drv.Memcpy2D()
    copy.set_src_host(img)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = img.shape[1] * 4
    copy.height = img.shape[0]
    copy(aligned=True)
    tex = drv.TextureObject(ary, address_mode=mode, filter_mode=filt, flags=flags,
                            border_color=(0.5, 0, 0, 0))
    f = SourceModule("""
    __global__ void k(float* out, cudaTextureObject_t t, const float* xs, const float* ys,
                      int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = tex2D<float>(t, xs[i], ys[i]);
    }""").get_function("k")
    out = np.zeros(xs.size, dtype=np.float32)
    f(drv.Out(out), tex, drv.In(xs), drv.In(ys), np.int32(xs.size), block=(128, 1, 1),
      grid=((xs.size + 127) // 128, 1))
    return out

if __name__ == "__main__":
    data = np.load(sys.argv[1])
    cases = json.loads(sys.argv[2])
    np.save(sys.argv[3], np.stack([sample(data["img"], data["xs"], data["ys"], *c)
                                   for c in cases]))
'''


@pytest.mark.gpu
def test_cpu_backend_samples_as_the_gpu(tmp_path):
    assert drv.backend() == "cuda"
    rng = np.random.default_rng()
    img = rng.standard_normal((17, 29)).astype(np.float32)
    n = 3001
    norm = drv.TRSF_NORMALIZED_COORDINATES
    cases = [(m, f, fl) for m in (0, 1, 2, 3) for f in (0, 1) for fl in (0, norm)
             if fl or m in (1, 3)]  # wrap and mirror need normalized coordinates
    xs = rng.uniform(-1.5, 2.5, n).astype(np.float32)
    ys = rng.uniform(-1.5, 2.5, n).astype(np.float32)
    inputs = tmp_path / "inputs.npz"
    script = tmp_path / "sample.py"
    script.write_text(_SAMPLE)
    results = []
    for scale in (1.0, 29.0):  # normalized coordinates, then texel coordinates
        np.savez(inputs, img=img, xs=xs * np.float32(scale), ys=ys * np.float32(scale))
        namespace: dict = {}
        exec(compile(_SAMPLE, "sample", "exec"), namespace)
        chosen = [c for c in cases if bool(c[2]) == (scale == 1.0)]
        gpu = np.stack([namespace["sample"](img, xs * np.float32(scale), ys * np.float32(scale),
                                            *c) for c in chosen])
        out = tmp_path / "cpu.npy"
        env = dict(os.environ, CUDAKIT_BACKEND="cpu")
        subprocess.run([sys.executable, str(script), str(inputs), json.dumps(chosen), str(out)],
                       check=True, env=env)
        results.append((chosen, gpu, np.load(out)))
    for chosen, gpu, cpu in results:
        for c, g, k in zip(chosen, gpu, cpu):
            tolerance = 0.0 if c[1] == 0 else 4e-6 * (np.abs(img).max() + 1)
            np.testing.assert_allclose(k, g, rtol=0, atol=tolerance,
                                       err_msg=f"address mode {c[0]}, filter {c[1]}, "
                                               f"flags {c[2]}")
