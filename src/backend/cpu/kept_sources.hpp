// Where the CPU backend writes the files the host compiler reads (the
// kernel's source, the prelude, in-memory headers). A build with debug
// information names these files in it, and gdb and the sanitizers read them
// when they show a source line, long after the compile: so such a build
// keeps them in a stable directory under the cache, named by their content
// (<cache>/cpu-sources/<hash>/), instead of a temporary one that is deleted.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

// A file to write: its path relative to the directory, and its text.
using SourceFiles = std::vector<std::pair<std::string, std::string>>;

// The directory kept sources go under: CUDAKIT_CACHE_DIR, else
// $XDG_CACHE_HOME/cudakit, else ~/.cache/cudakit, then "cpu-sources".
std::filesystem::path kept_sources_root();

// Writes `files` into <root>/<hash of names and texts>/ (once: a directory
// already complete is reused; concurrent writers write the same bytes
// through a rename) and returns that directory. Empty when it cannot be
// written (a read-only cache): the caller then compiles from a temporary
// directory and the build has no source lines to show.
std::filesystem::path keep_sources(const SourceFiles& files);

}  // namespace cudakit::detail::cpu
