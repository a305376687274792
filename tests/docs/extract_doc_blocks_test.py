#!/usr/bin/env python3
"""Checks extract_doc_blocks.py on a small document: whole programs,
fragments of a complete example, GPU blocks, and the blocks it must refuse
with a clear reason."""

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

```cpp
// fragment of examples/docs/page.cpp
#include <cmath>
int x = 1;
  int y = 2;   // indented differently in the example
```

```cpp
// needs a GPU: it reads GPU memory
int main() {
  int z = 3;
}
```

```cpp
int lonely = 3;
```

```cpp
// fragment of examples/docs/page.cpp
int changed = 4;
```

```cpp
// fragment of examples/docs/no_such_example.cpp
int z = 4;
```

```sh
echo not C++
```

<!-- needs-gpu: an unseen marker still works -->
```c++
int main() {
  const char* source = R"(
#include "not/hoisted.h"
)";
}
```
"""

EXAMPLE = """#include <cmath>
#include <cudakit/cudakit.hpp>
int page() {
    int x = 1;
    int y = 2;   // indented differently in the example
    return 0;
}
"""


class ExtractorTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp())
        (self.root / "docs").mkdir()
        (self.root / "docs" / "page.md").write_text(DOCUMENT)
        (self.root / "examples" / "docs").mkdir(parents=True)
        (self.root / "examples" / "docs" / "page.cpp").write_text(EXAMPLE)
        out = self.root / "out"
        subprocess.run([sys.executable, str(EXTRACTOR), "--source-root", str(self.root),
                        "--out-dir", str(out), str(self.root / "docs" / "page.md")], check=True)
        self.unit = (out / "doc_docs_page_md.cpp").read_text()
        self.cmake = (out / "doc_blocks.cmake").read_text()

    def tearDown(self) -> None:
        shutil.rmtree(self.root)

    def block(self, line: int) -> str:
        """The generated code of the block whose fence is on `line`."""
        return self.unit.split(f"namespace block_line_{line} {{")[1].split("}  // namespace")[0]

    def registration(self, line: int) -> str:
        return self.unit.split(f"block_line_{line}_registered")[1].split("\n")[0]

    def test_every_cpp_block_is_a_test_named_after_its_line(self) -> None:
        for line in (3, 11, 18, 25, 29, 34, 44):
            self.assertIn(f'"docs/page.md:{line}"', self.cmake)
        self.assertNotIn("echo", self.unit)

    def test_a_whole_program_keeps_its_lines_and_moves_its_includes_up(self) -> None:
        self.assertIn("#include <vector>", self.unit.split("namespace {")[0])
        self.assertIn('#line 4 "docs/page.md"', self.unit)
        self.assertIn("auto block_main() {", self.unit)
        self.assertNotIn("int main() {", self.unit)

    def test_a_fragment_held_by_its_example_passes_without_being_compiled_here(self) -> None:
        self.assertIn("int block_main() { return 0; }", self.block(11))
        self.assertNotIn("int x = 1;", self.unit)
        self.assertTrue(self.registration(11).endswith("nullptr, nullptr);"), self.registration(11))

    def test_a_gpu_block_carries_its_reason(self) -> None:
        self.assertIn('"it reads GPU memory"', self.registration(18))
        self.assertIn('"an unseen marker still works"', self.registration(44))
        gpu_tests = self.cmake.split("CUDAKIT_DOC_GPU_TESTS")[1]
        self.assertIn('  "docs/page.md:18"', gpu_tests)
        self.assertIn('  "docs/page.md:44"', gpu_tests)

    def test_blocks_that_cannot_be_compiled_fail_with_the_reason(self) -> None:
        self.assertIn("defines no `int main()` and does not say", self.registration(25))
        self.assertIn("from the fragment's line `int changed = 4;` on they differ",
                      self.registration(29))
        self.assertIn("examples/docs/no_such_example.cpp, which does not exist",
                      self.registration(34))

    def test_an_include_inside_a_kernel_string_stays_there(self) -> None:
        self.assertNotIn('#include "not/hoisted.h"', self.unit.split("namespace {")[0])


if __name__ == "__main__":
    unittest.main()
