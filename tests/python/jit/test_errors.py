"""Bad input: each case gives an error that names what was wrong (and for
kernel code, the Python file and line), raised at the first call."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudakit import cuda

from . import bad_kernels as bad

OUT = None


def out_array(n=4, dtype=np.int32):
    return cuda.device_array(n, dtype)


def line_of(function_name: str, text: str) -> int:
    import inspect
    lines, first = inspect.getsourcelines(getattr(bad, function_name).py_func)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(text)


def test_undefined_name_is_a_typing_error_with_file_and_line():
    with pytest.raises(cuda.TypingError) as info:
        bad.undefined_name[1, 1](out_array())
    message = str(info.value)
    assert "no_such_name" in message and "bad_kernels.py" in message
    assert f"line {line_of('undefined_name', 'no_such_name')}" in message


def test_variable_with_two_types():
    with pytest.raises(cuda.TypingError, match="variable 'v' is int64 .* and here array"):
        bad.variable_of_two_types[1, 1](out_array())


def test_call_of_an_unsupported_function():
    with pytest.raises(cuda.TypingError, match="cannot call builtins.sorted"):
        bad.calls_unsupported_function[1, 1](out_array())


def test_list_built_in_a_kernel():
    with pytest.raises(cuda.UnsupportedError, match=r"building a list \(\[1, 2, 3\]\)") as info:
        bad.builds_a_list[1, 1](out_array())
    assert f"line {line_of('builds_a_list', '[1, 2, 3]')}" in str(info.value)


def test_iteration_over_a_tuple_and_whole_array_arithmetic():
    with pytest.raises(cuda.UnsupportedError, match="differ in type.*literal_unroll"):
        bad.iterates_over_a_tuple[1, 1](out_array())
    with pytest.raises(cuda.UnsupportedError, match="whole arrays"):
        bad.whole_array_arithmetic[1, 1](out_array())


def test_kernel_returning_a_value():
    with pytest.raises(cuda.TypingError, match="cannot return a value"):
        bad.returns_a_value[1, 1](out_array())


def test_wrong_number_of_launch_arguments():
    with pytest.raises(TypeError, match=r"two_params\(\) takes 2 arguments, 1 given"):
        bad.two_params[1, 1](out_array())


def test_float_array_where_the_signature_says_int32():
    with pytest.raises(TypeError, match=r"No matching definition .*float32.*int32"):
        bad.wants_int32[1, 1](out_array(dtype=np.float32))


def test_block_of_2048_threads():
    with pytest.raises(ValueError, match="block of 2048 threads.* at most 1024"):
        bad.simple[1, 2048](out_array())


@pytest.mark.parametrize("config", [(0, 32), (1,), (1, (1, 2, 3, 4))])
def test_bad_launch_configurations(config):
    with pytest.raises(ValueError):
        bad.simple[config](out_array())


def test_float_grid_is_refused():
    with pytest.raises(TypeError, match="griddim must be an integer, got the float 2.5"):
        bad.simple[2.5, 32](out_array())


def test_argument_that_is_not_an_array_or_number():
    with pytest.raises(cuda.TypingError, match="cannot pass str"):
        bad.simple[1, 1]("text")


def run_isolated(code: str) -> str:
    """Runs `code` in a fresh process and returns its stdout + stderr: a
    trap on a GPU leaves the process's context unusable, so kernels that
    stop themselves run apart from the other tests."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = dict(os.environ)
    package_root = Path(__import__("cudakit").__file__).parent.parent
    tests_root = Path(__file__).parent.parent
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package_root), str(tests_root),
                                                      env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=300)
    return result.stdout + result.stderr


def test_out_of_bounds_write_with_debug_names_the_python_line():
    line = line_of("writes_past_the_end", "out[i] = i")
    output = run_isolated(
        "from cudakit import cuda\n"
        "from jit import bad_kernels as bad\n"
        "out = cuda.device_array(5, 'int32')\n"
        "try:\n"
        "    bad.writes_past_the_end[1, 8](out)\n"
        "    cuda.synchronize()\n"
        "except Exception as error:\n"
        "    print('raised:', error)\n")
    assert "raised:" in output, output
    assert "IndexError: index 5 is out of bounds for axis 0 with size 5" in output, output
    assert re.search(rf'bad_kernels.py\\?", line {line}', output), output


def test_kernel_raising_zero_division_error_with_debug():
    out = out_array(1)
    bad.raises_zero_division[1, 1](out, 2)
    assert out.copy_to_host()[0] == 0
    output = run_isolated(
        "from cudakit import cuda\n"
        "from jit import bad_kernels as bad\n"
        "out = cuda.device_array(1, 'int32')\n"
        "try:\n"
        "    bad.raises_zero_division[1, 1](out, 0)\n"
        "    cuda.synchronize()\n"
        "except Exception as error:\n"
        "    print('raised:', error)\n")
    assert "raised:" in output and "ZeroDivisionError('division by zero')" in output, output


def test_unknown_jit_option_and_bad_signature():
    with pytest.raises(TypeError, match="unknown option"):
        cuda.jit(fast=True)
    with pytest.raises(TypeError, match="cannot read the signature"):
        cuda.jit("void(float99[:])")


def test_device_function_launched_as_kernel_and_kernel_called_directly():
    device_fn = cuda.jit(device=True)(lambda x: x)
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        device_fn[1, 1]
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        device_fn.inspect_sass((cuda.int32,))
    with pytest.raises(NotImplementedError, match="inspect_asm"):
        bad.simple.inspect_sass()
    with pytest.raises(ValueError, match=r"launch it with simple\[griddim, blockdim\]"):
        bad.simple(out_array())


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="string, object"):
        cuda.device_array(3, "U8")
    with pytest.raises(TypeError, match="align=True"):
        cuda.device_array(3, np.dtype([("a", np.int8), ("b", np.int32)]))


def test_compile_device_types_a_device_function_and_names_it_in_its_ptx():
    @cuda.jit(device=True)
    def scaled_sum(x, y):
        return x * 2 + y

    result = scaled_sum.compile_device((cuda.int32, cuda.float32))
    assert result.signature.return_type == cuda.float64  # Numba's int32 * 2 + float32
    assert result.signature.args == (cuda.int32, cuda.float32)
    assert result.fndesc.mangled_name in scaled_sum.inspect_asm((cuda.int32, cuda.float32))
    with pytest.raises(RuntimeError, match="is a kernel"):
        bad.simple.compile_device((cuda.float32[:],))
