#include "backend/cpu/cpu_graph.hpp"

#include <exception>

namespace cudakit::detail::cpu {

void CpuGraphExec::run() {
  std::lock_guard lock(mutex_);
  std::exception_ptr failure;
  for (const RecordedOp& op : ops_) {
    if (!failure && op.task) {
      try {
        op.task();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (op.after) op.after();
  }
  if (failure) std::rethrow_exception(failure);
}

bool CpuGraphExec::update(const CpuGraph& graph) {
  std::lock_guard lock(mutex_);
  if (graph.device != device_ || graph.ops.size() != ops_.size()) return false;
  for (std::size_t i = 0; i < ops_.size(); ++i)
    if (graph.ops[i].key != ops_[i].key) return false;
  ops_ = graph.ops;
  return true;
}

}  // namespace cudakit::detail::cpu
