// The complete program of the C++ fragments in docs/guide/multi-gpu.md: each
// fragment, verbatim between "// ---" lines, in a function named after its
// section, with what it needs before it and checks of its result after it.
// Runs as the ctest test example.docs_multi_gpu (on a GPU where there is one
// and NCCL loads, else on the CPU backend, whose virtual devices
// CUDAKIT_CPU_DEVICES sets).
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <vector>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

std::vector<float> gradient_of(int rank, std::size_t n) {
  std::vector<float> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = std::sin(0.01f * static_cast<float>(i) + rank);
  return g;
}

int one_process() {
  const std::size_t n = 1001;
  // --- docs/guide/multi-gpu.md, "One process, several devices" ---
  // clang-format off
  std::vector<ck::Device> devices;
  for (int i = 0; i < ck::Device::count(); ++i) devices.push_back(ck::Device::get(i));
  std::vector<ck::Communicator> ranks = ck::Communicator::local(devices);

  std::vector<ck::DeviceBuffer<float>> grads;
  for (const ck::Device& d : devices) {
    grads.emplace_back(d, n);
    grads.back().copy_from(gradient_of(d.ordinal(), n));   // each device's own values
  }
  {
    ck::Communicator::Group group;                         // one thread drives every rank
    for (std::size_t r = 0; r < ranks.size(); ++r)
      ranks[r].all_reduce(grads[r], ck::ReduceOp::avg, devices[r].default_stream());
  }
  for (const ck::Device& d : devices) d.synchronize();
  // clang-format on
  // ---

  for (std::size_t i = 0; i < n; ++i) {
    double mean = 0;
    for (const ck::Device& d : devices) mean += gradient_of(d.ordinal(), n)[i];
    mean /= static_cast<double>(devices.size());
    for (const auto& g : grads)
      if (std::abs(g.to_host()[i] - mean) > 1e-5) return 1;
  }
  return 0;
}

int several_processes() {
  const int nranks = 1, rank = 0;  // this program is the only process here
  const std::size_t n = 1001;
  ck::DeviceBuffer<float> grad(ck::Device::get(0), n);
  grad.copy_from(gradient_of(0, n));
  const ck::Stream stream = ck::Device::get(0).create_stream();
  // --- docs/guide/multi-gpu.md, "Several processes" ---
  // clang-format off
  ck::UniqueId id = ck::get_unique_id();     // in one process; send id.to_hex() to the others
  ck::Communicator comm = ck::Communicator::create(nranks, id, rank, ck::Device::get(0));
  comm.all_reduce(grad, ck::ReduceOp::sum, stream);
  stream.synchronize();
  // clang-format on
  // ---
  return grad.to_host() == gradient_of(0, n) ? 0 : 1;
}

// A GPU without NCCL installed cannot run the page; the error says why.
int guarded(int (*section)()) {
  try {
    return section();
  } catch (const ck::NcclNotFound& e) {
    std::printf("skipped: %s\n", e.what());
    return 0;
  }
}

}  // namespace

int main() {
  return run_doc_sections({{"one process", [] { return guarded(&one_process); }},
                           {"several processes", [] { return guarded(&several_processes); }}});
}
