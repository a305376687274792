// Loading modules with given kernels on the fake backend.
#pragma once

#include <string>
#include <utility>

#include "core/module_state.hpp"
#include "cudakit/module.hpp"
#include "unit/core_fake_backend.hpp"

namespace cudakit::testing {

inline Module load_fake_module(FakeModuleSpec spec, std::string source = {},
                               CompiledCode code = {}) {
  fake().next_module = std::move(spec);
  return detail::ModuleAccess::load_with_source(code, Device::get(0), std::move(source));
}

}  // namespace cudakit::testing
