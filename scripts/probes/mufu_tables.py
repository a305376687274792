"""Pack mufu_tables.cu's outputs for the trip back: each table as the second
differences of its bits (int8 where they fit), xz-compressed, in one .npz
each; the random samples as they are. Usage: mufu_tables.py RAW_DIR OUT_DIR.
unpack(npz, name) gives a table back."""
import concurrent.futures, lzma, os, sys
import numpy as np

GROUPS = {n: ["grid_" + n] for n in ["sin", "cos", "ex2", "lg2", "rsq", "rcp"]}
OPS = ["sin", "cos", "ex2", "lg2", "rsq", "rcp"]


def pack(bits):
    bits = bits.astype(np.int64)
    mask = bits == 0xFFFFFFFF
    filled = bits.copy()
    if mask.any():  # unreachable grid points take the previous value
        idx = np.where(~mask, np.arange(bits.size), 0)
        np.maximum.accumulate(idx, out=idx)
        filled = bits[idx]
    d2 = np.diff(filled, n=2)
    big = np.abs(d2).max()
    dtype = np.int8 if big < 128 else (np.int16 if big < 32768 else np.int32)
    return {"head": filled[:2].astype(np.int64), "n": np.array(bits.size), "dtype": np.array(np.dtype(dtype).str),
            "d2": np.frombuffer(lzma.compress(d2.astype(dtype).tobytes(), preset=1), np.uint8),
            "mask": np.frombuffer(lzma.compress(np.packbits(mask).tobytes()), np.uint8)}


def unpack(npz, name):
    """The table's bits back (0xffffffff where the grid point was unreachable)."""
    head, n = npz[name + ".head"], int(npz[name + ".n"])
    d2 = np.frombuffer(lzma.decompress(npz[name + ".d2"].tobytes()), np.dtype(str(npz[name + ".dtype"]))).astype(np.int64)
    d1 = np.concatenate([[head[1] - head[0]], d2]).cumsum()
    bits = np.concatenate([[head[0]], head[0] + d1.cumsum()])
    mask = np.unpackbits(np.frombuffer(lzma.decompress(npz[name + ".mask"].tobytes()), np.uint8))[:n].astype(bool)
    bits[mask] = 0xFFFFFFFF
    return bits.astype(np.uint32)


def main(raw, out):
    def load(name):
        return np.fromfile(os.path.join(raw, name + ".u32"), np.uint32)

    names = [n for group in GROUPS.values() for n in group]
    with concurrent.futures.ProcessPoolExecutor(len(names)) as pool:
        done = dict(zip(names, pool.map(pack, [load(n) for n in names])))
    for group, members in GROUPS.items():
        arrays = {name + "." + key: value for name in members for key, value in done[name].items()}
        path = os.path.join(out, "mufu_%s.npz" % group)
        np.savez(path, **arrays)
        print(group, os.path.getsize(path), flush=True)
    samples = {}
    for op in OPS:
        samples["in_" + op] = load("sample_in_" + op)
        samples["out_" + op] = load("sample_out_" + op)
    np.savez_compressed(os.path.join(out, "mufu_samples.npz"), **samples)
    print("samples", os.path.getsize(os.path.join(out, "mufu_samples.npz")))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
