// The complete program of the C++ fragments in docs/guide/memory.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_memory (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int memory() {
  // --- docs/guide/memory.md, "Memory" ---
  // clang-format off

  namespace ck = cudakit;

  std::vector<float> host(1 << 20, 1.5f);
  auto a = ck::to_device(host);             // allocate + copy
  ck::DeviceBuffer<float> b(host.size());   // uninitialised
  b.copy_from(a);                           // device to device
  b.zero();
  b.untyped().fill_bytes(0x3f800000u, 4, b.size());   // every element 1.0f
  std::vector<float> back = b.to_host();

  ck::PinnedBuffer<float> staging(host.size());
  ck::Stream s = ck::Device::current().create_stream();
  a.copy_to_async(staging, s);              // overlaps with other streams' work
  s.synchronize();
  // clang-format on
  // ---
  return back.size() == host.size() && back.front() == 1.0f && back.back() == 1.0f ? 0 : 1;
}

int registered_host_memory() {
  // --- docs/guide/memory.md, "Memory" ---
  // clang-format off

  namespace ck = cudakit;

  std::vector<float> host(1 << 20, 2.0f);
  ck::HostRegistration locked(host.data(), host.size() * sizeof(float));
  ck::DeviceBuffer<float> d(host.size());
  ck::Stream s = ck::Device::current().create_stream();
  d.copy_from_async(std::span<const float>(host), s);   // truly async: the memory is locked
  s.synchronize();
  locked.unregister();                      // or let it go out of scope
  // clang-format on
  // ---
  return d.to_host() == host && !locked.registered() ? 0 : 1;
}

}  // namespace

int main() {
  return run_doc_sections(
      {{"memory", &memory}, {"registered_host_memory", &registered_host_memory}});
}
