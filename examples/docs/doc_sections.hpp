// The main() of each examples/docs program: runs its sections (one function
// per section of the page, 0 when its result checks out) in order, names
// each that failed, prints "ok" when none did.
#pragma once

#include <cstdio>
#include <initializer_list>

struct DocSection {
  const char* name;
  int (*run)();
};

inline int run_doc_sections(std::initializer_list<DocSection> sections) {
  int failures = 0;
  for (const DocSection& section : sections) {
    if (section.run() != 0) {
      std::fprintf(stderr, "%s: wrong result\n", section.name);
      ++failures;
    }
  }
  if (failures == 0) std::puts("ok");
  return failures == 0 ? 0 : 1;
}
