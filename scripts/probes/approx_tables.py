"""Writes the tables of src/backend/cpu/prelude/cudakit_cpu_approx_math.h, as
approx_math.cu measured them on the GPU, into the files the CPU backend carries
(src/backend/cpu/approx_tables/*.bin). Usage: approx_tables.py MEASURED_DIR
[DEST_DIR] (MEASURED_DIR with half_turn.u32, fraction.u32, log2_below.u32,
log2_above.u32, rsqrt.u32 and reciprocal.u32).

File format (little-endian): "CKAT", u32 version (1), u32 entries, u32 length
of the difference stream, then that stream zlib-compressed. The stream holds
each entry's second difference d = t[i] - 2 t[i-1] + t[i-2] (mod 2^32, with
t[-1] = t[-2] = 0) as one signed byte, or as the byte 0x80 and four bytes when
it does not fit in -127..127. Grid points that no float input reaches were
never measured (0xffffffff); they take the value that makes d = 0."""
import os, struct, sys, zlib
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEST = os.path.join(HERE, "..", "..", "src", "backend", "cpu", "approx_tables")


def fill_unmeasured(table):
    t = table.astype(np.int64)
    for i in np.where(table == 0xFFFFFFFF)[0]:
        t[i] = 2 * t[i - 1] - t[i - 2] if i >= 2 else 0
    return (t & 0xFFFFFFFF).astype(np.uint32)


def encode(table):
    t = table.astype(np.int64)
    prev = np.concatenate([[0, 0], t])
    d = (t - 2 * prev[1:-1] + prev[:-2]) & 0xFFFFFFFF
    d = np.where(d >= 1 << 31, d - (1 << 32), d)
    small = np.abs(d) <= 127
    out = bytearray()
    if small.all():
        out = d.astype(np.int8).tobytes()
    else:
        for value, fits in zip(d.tolist(), small.tolist()):
            out += struct.pack("<b", value) if fits else b"\x80" + struct.pack("<i", value)
    out = bytes(out)
    return b"CKAT" + struct.pack("<III", 1, t.size, len(out)) + zlib.compress(out, 9)


def main(measured, dest=DEST):
    for name in ["half_turn", "fraction", "log2_below", "log2_above", "rsqrt", "reciprocal"]:
        path = os.path.join(measured, name + ".u32")
        if not os.path.exists(path):  # keep that table as it is
            continue
        table = fill_unmeasured(np.fromfile(path, np.uint32))
        blob = encode(table)
        with open(os.path.join(dest, name + ".bin"), "wb") as f:
            f.write(blob)
        print(name, table.size, "entries,", len(blob), "bytes")


if __name__ == "__main__":
    main(*sys.argv[1:3])
