#!/usr/bin/env python3
"""Checks extract_doc_blocks.py on a small document: whole programs,
fragments, GPU blocks, and the blocks it must refuse with a clear reason."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

EXTRACTOR = Path(__file__).resolve().parent / "extract_doc_blocks.py"

DOCUMENT = """# A page

```cpp
#include <cudakit/cudakit.hpp>
#include <vector>
int main() {
  std::vector<int> v;
}
```

<!-- fragment: wrapper=main -->
```cpp
int x = 1;
```

<!-- fragment: wrapper=main -->
<!-- needs-gpu: it reads GPU memory -->
```cpp
int y = 2;
```

```cpp
int lonely = 3;
```

<!-- fragment: wrapper=no_such_wrapper -->
```cpp
int z = 4;
```

```sh
echo not C++
```

<!-- fragment: wrapper=main -->
```c++
int spelled_cxx = 5;
```

<!-- fragment: wrapper=main -->
```cpp
const char* source = R"(
#include "not/hoisted.h"
)";
```
"""


class ExtractorTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp())
        (self.root / "docs").mkdir()
        (self.root / "docs" / "page.md").write_text(DOCUMENT)
        out = self.root / "out"
        subprocess.run([sys.executable, str(EXTRACTOR), "--source-root", str(self.root),
                        "--out-dir", str(out), str(self.root / "docs" / "page.md")], check=True)
        self.unit = (out / "doc_docs_page_md.cpp").read_text()
        self.cmake = (out / "doc_blocks.cmake").read_text()

    def tearDown(self) -> None:
        shutil.rmtree(self.root)

    def test_every_cpp_block_is_a_test_named_after_its_line(self) -> None:
        for line in (3, 12, 18, 22, 27, 36, 41):
            self.assertIn(f'"docs/page.md:{line}"', self.cmake)
        self.assertNotIn("echo", self.unit)

    def test_a_whole_program_keeps_its_lines_and_moves_its_includes_up(self) -> None:
        self.assertIn("#include <vector>", self.unit.split("namespace {")[0])
        self.assertIn('#line 4 "docs/page.md"', self.unit)
        self.assertIn("auto block_main() {", self.unit)
        self.assertNotIn("int main() {", self.unit)

    def test_a_fragment_runs_inside_its_wrapper(self) -> None:
        self.assertIn('#line 13 "docs/page.md"\nint x = 1;', self.unit)

    def test_a_gpu_block_carries_its_reason(self) -> None:
        self.assertIn('"it reads GPU memory"', self.unit)
        self.assertIn('  "docs/page.md:18"', self.cmake.split("CUDAKIT_DOC_GPU_TESTS")[1])

    def test_blocks_that_cannot_be_compiled_fail_with_the_reason(self) -> None:
        self.assertIn("defines no `int main()` and has no", self.unit)
        self.assertIn("wrapper 'no_such_wrapper' is not", self.unit)

    def test_an_include_inside_a_kernel_string_stays_there(self) -> None:
        self.assertNotIn('#include "not/hoisted.h"', self.unit.split("namespace {")[0])


if __name__ == "__main__":
    unittest.main()
