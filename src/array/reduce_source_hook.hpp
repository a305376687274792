// A way for tests to see the CUDA C that reductions and scans generate (the
// CPU backend runs it here; the hook lets the same text be compiled for a GPU
// arch with NVRTC, so GPU-only compile errors show up without a GPU).
#pragma once

#include <functional>
#include <string>

namespace cudakit::detail {

using SourceObserver =
    std::function<void(const std::string& kernel_name, const std::string& source)>;

// Installs (or, with an empty function, removes) the observer. Not for
// concurrent use: tests set it, run, and clear it.
void set_source_observer(SourceObserver observer);
// Calls the observer, if any, with the source `make_source` builds.
void observe_source(const std::string& kernel_name,
                    const std::function<std::string()>& make_source);

}  // namespace cudakit::detail
