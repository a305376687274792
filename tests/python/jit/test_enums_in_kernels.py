"""Enum and IntEnum members in kernels (arguments, globals, Color["red"],
comparisons as Python makes them) and Numba's number types converting
numbers on the host, each checked against the interpreter."""

from __future__ import annotations

from enum import Enum, IntEnum

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import types
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng(4242)
N = 45


class Color(Enum):
    red = 1
    green = 2
    blue = 3


class Mint(Enum):
    mint = 3  # the value of Color.blue, another class


class Status(IntEnum):
    ok = 200
    missing = 404


class Size(IntEnum):
    large = 200  # Status.ok's value


def classify(codes, colors, out):
    i = cuda.grid(1)
    if i < codes.shape[0]:
        code = codes[i]
        color = Color.red if code > Status.ok else Color["green"]
        out[i, 0] = color == Color.red
        out[i, 1] = color is Color["green"]
        out[i, 2] = code - Status.missing if code > Status.missing else code + Size.large
        out[i, 3] = colors is Color.blue
        out[i, 4] = Color.blue == Mint.mint  # another class: never equal
        out[i, 5] = Status.ok == Size.large  # IntEnums compare as numbers
        out[i, 6] = Status.ok is Size.large
        out[i, 7] = color.value * 10


@pytest.mark.parametrize("member", [Color.red, Color.blue])
def test_enum_members_compare_as_python_does(member):
    codes = RNG.integers(100, 600, N)
    expected = run_threads(classify, N, codes, member, np.zeros((N, 8), np.int64))[2]
    out = np.zeros((N, 8), np.int64)
    cuda.jit(classify)[2, 32](codes, member, out)
    np.testing.assert_array_equal(out, expected)


def test_enum_misuse_is_a_clear_error():
    @cuda.jit
    def ordered(out):
        out[0] = Color.red < Color.green

    @cuda.jit
    def unknown(out):
        out[0] = Color["purple"] == Color.red

    with pytest.raises(TypingError, match="Enum members are not ordered"):
        ordered[1, 1](np.zeros(1, np.int64))
    with pytest.raises(TypingError, match="Color has no member 'purple'"):
        unknown[1, 1](np.zeros(1, np.int64))


def test_number_types_convert_numbers_on_the_host():
    assert types.int16(Status.ok) == np.int16(200) and type(types.int16(7)) is np.int16
    assert types.float32(2.5) == np.float32(2.5) and type(types.float32(1)) is np.float32
    signature = types.float32(types.int32)
    assert signature.args == (types.int32,)
