"""Kernels and device functions the construct tests translate (kept in a
module of their own so their source and line numbers are stable)."""

import math

import numpy as np

from cudakit import cuda
from cudakit.cuda.random import xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32

SCALE = 3
OFFSETS = np.array([1.5, -2.0, 4.25], dtype=np.float64)


@cuda.jit(device=True)
def arithmetic(x, y):
    a = x // y + x % y
    b = x / y
    c = x ** 2 - y ** 3
    return a + b + c


@cuda.jit(device=True)
def branches(x, y):
    if x > y:
        r = x - y
    elif x == y:
        r = 0
    else:
        r = y - x
        if r > 5:
            return -1
    return r * SCALE


@cuda.jit(device=True)
def loops(x, y):
    total = 0
    for i in range(x, y, -2):
        total += i
    k = 0
    while True:
        k += 1
        if k % 3 == 0:
            continue
        if k > 10:
            break
        total += k
    for j in range(5):
        if j == y % 5:
            break
        total -= j
    return total


@cuda.jit(device=True)
def math_calls(x, y):
    return (math.sqrt(abs(x)) + math.exp(-abs(y)) + math.sin(x) * math.cos(y)
            + math.atan2(y, x + 0.5) + math.floor(x) + math.ceil(y) + math.log1p(abs(x))
            + min(x, y) + max(x, y, 0.25) + round(x) + math.pi + math.fabs(y) + pow(abs(x), 0.5))


@cuda.jit(device=True)
def casts(x, y):
    i = int(x * 10)
    f = np.float32(y) * np.float32(2.5)
    u = np.uint8(200) + np.uint8(50)
    return i + f + u + float(True) + OFFSETS[1]


@cuda.jit(device=True)
def helper_twice(v):
    return 2 * v


@cuda.jit
def plain_function_called_as_device(v):
    return v + 1


@cuda.jit(device=True)
def nested_calls(x, y):
    a, b = x, y
    a, b = b, a
    return helper_twice(a) - b + helper_twice(1.5)


@cuda.jit
def elementwise_int(f_out, xs, ys, which):
    i = cuda.grid(1)
    if i >= xs.size:
        return
    if which == 0:
        f_out[i] = arithmetic(xs[i], ys[i])
    elif which == 1:
        f_out[i] = branches(xs[i], ys[i])
    elif which == 2:
        f_out[i] = loops(xs[i], ys[i])


@cuda.jit
def elementwise_float(f_out, xs, ys, which):
    i = cuda.grid(1)
    if i < xs.size:
        if which == 0:
            f_out[i] = arithmetic(xs[i], ys[i])
        elif which == 1:
            f_out[i] = math_calls(xs[i], ys[i])
        elif which == 2:
            f_out[i] = casts(xs[i], ys[i])
        else:
            f_out[i] = nested_calls(xs[i], ys[i])


@cuda.jit
def indexing_2d(a, out):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        out[x, y] = a[x, y] * a.ndim + a[-1, 0] + a.size + plain_function_called_as_device(y)


@cuda.jit
def indexing_3d(a, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    n0, n1, n2 = a.shape
    while i < n0 * n1 * n2:
        p = i // (n1 * n2)
        q = (i // n2) % n1
        r = i % n2
        out[p, q, r] = a[p, q, r] + 1
        i += stride


@cuda.jit
def local_array_kernel(out):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    scratch = cuda.local.array(4, dtype=np.int64)
    for k in range(4):
        scratch[k] = i * k
    total = 0
    for k in range(3, -1, -1):
        total = total * 10 + scratch[k]
    out[i] = total


@cuda.jit
def block_reverse(a, out):
    buffer = cuda.shared.array(64, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < a.size:
        buffer[t] = a[i]
    cuda.syncthreads()
    j = cuda.blockIdx.x * cuda.blockDim.x + (cuda.blockDim.x - 1 - t)
    if i < a.size and j < a.size:
        out[i] = buffer[cuda.blockDim.x - 1 - t]


@cuda.jit
def atomics_kernel(ints, floats, uints, longs, n):
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(ints, 0, 1)
        cuda.atomic.sub(ints, 1, 2)
        cuda.atomic.max(ints, 2, i)
        cuda.atomic.min(ints, 3, -i)
        cuda.atomic.add(floats, 0, 0.5)
        cuda.atomic.max(floats, 1, i * 0.25)
        cuda.atomic.min(floats, 2, -i * 0.5)
        cuda.atomic.inc(uints, 0, 7)
        cuda.atomic.or_(uints, 1, 2)
        cuda.atomic.and_(uints, 1, 7)
        cuda.atomic.xor(uints, 2, 1)
        cuda.atomic.add(longs, 0, i)
        cuda.atomic.max(longs, 1, i)
        cuda.atomic.cas(ints, 4, 0, i + 1)
        cuda.atomic.exch(ints, 5, 42)


@cuda.jit
def atomic_2d(counts, keys):
    i = cuda.grid(1)
    if i < keys.shape[0]:
        cuda.atomic.add(counts, (keys[i, 0], keys[i, 1]), 1)


@cuda.jit
def warp_sum(values, out):
    i = cuda.grid(1)
    v = values[i] if i < values.size else 0.0
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def count_positive(values, out):
    i = cuda.grid(1)
    positive = i < values.size and values[i] > 0
    n = cuda.syncthreads_count(positive)
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = n


@cuda.jit("void(float32[:], float32[:], float32)")
def axpy_signature(x, out, alpha):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = alpha * x[i] + out[i]


@cuda.jit
def fill_host(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 2


@cuda.jit
def print_values(flag, x):
    if cuda.grid(1) == 0:
        print("flag", flag, "x", x, "%d literal")


@cuda.jit
def dynamic_shared_reverse(a, out):
    buffer = cuda.shared.array(0, dtype=np.float64)
    t = cuda.threadIdx.x
    if t < a.size:
        buffer[t] = a[t]
    cuda.syncthreads()
    if t < a.size:
        out[t] = buffer[a.size - 1 - t]


TABLE = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)


@cuda.jit
def constant_lookup(idx, out):
    table = cuda.const.array_like(TABLE)
    i = cuda.grid(1)
    if i < idx.size:
        out[i] = table[idx[i]] + TABLE[0]


@cuda.jit
def monte_carlo_pi(states, iterations, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    inside = 0
    for _ in range(iterations):
        x = xoroshiro128p_uniform_float32(states, i)
        y = xoroshiro128p_uniform_float32(states, i)
        if x * x + y * y <= 1.0:
            inside += 1
    out[i] = 4.0 * inside / iterations


@cuda.jit
def normals(states, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_normal_float64(states, i)


@cuda.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b


@cuda.jit
def tuple_returns(xs, quotients, remainders):
    i = cuda.grid(1)
    if i < xs.size:
        q, r = divmod_pair(xs[i], 7)
        quotients[i] = q
        remainders[i] = r


@cuda.jit(device=True)
def row_sum(row):
    total = 0.0
    for j in range(row.shape[0]):
        total += row[j]
    return total


@cuda.jit
def views_in_kernel(a, sums, tails, evens):
    i = cuda.grid(1)
    if i < a.shape[0]:
        sums[i] = row_sum(a[i])
        tail = a[i, -3:]
        tails[i] = tail[0] + tail.shape[0]
        every_other = a[i, ::2]
        reversed_row = a[i, ::-1]
        evens[i] = row_sum(every_other) + reversed_row[0]


@cuda.jit
def sum_by_iteration(rows, out):
    i = cuda.grid(1)
    if i < rows.shape[0]:
        total = 0.0
        for value in rows[i]:
            total += value
        out[i] = total


@cuda.jit
def ufunc_in_kernel(x, out):
    if cuda.grid(1) == 0:
        np.sin(x, out)


@cuda.jit
def tuple_argument(params, out):
    i = cuda.grid(1)
    scale, offset, flag = params
    if i < out.size:
        out[i] = i * scale + offset + params[2]
