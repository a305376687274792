// Pieces of the compile-cache key that deserve their own tests: finding the
// #include directives of a source and resolving them the way the compiler
// will, so that a changed header changes the key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cudakit/compile_options.hpp"

namespace cudakit::detail {

struct IncludeDirective {
  std::string name;  // as written between the quotes or angle brackets
  bool quoted;       // "name" (true) or <name> (false)
};

// The #include directives of `source`, in order. Directives inside comments
// are skipped; computed includes (#include MACRO) are not resolvable here and
// are left out (the source itself is part of the key).
std::vector<IncludeDirective> scan_includes(std::string_view source);

// The include directories the compiler will search, in order:
// options.include_dirs, then -I / --include-path given in extra_flags.
std::vector<std::string> include_search_dirs(const CompileOptions& options);

// One resolved header: how it was found (in-memory name or file path) and
// its content.
struct ResolvedHeader {
  std::string id;  // "mem:<name>" or the file path
  std::string content;
};

// Every header reachable from `source` through #include, resolved against
// options.headers, then (for "quoted" includes from a file) the including
// file's directory, then the include directories; recursively, each header
// once, to a depth of 64. A name that resolves nowhere (a system or toolkit
// header) appears with id "missing:<name>" and empty content, so that the
// header appearing later in a searched directory changes the key.
std::vector<ResolvedHeader> resolve_includes(std::string_view source,
                                             const CompileOptions& options);

}  // namespace cudakit::detail
