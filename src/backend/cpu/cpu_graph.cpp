#include "backend/cpu/cpu_graph.hpp"

#include <exception>

#include "backend/cpu/cpu_stream.hpp"

namespace cudakit::detail::cpu {

EventRecordings CpuGraphExec::begin_event_recordings() {
  std::lock_guard lock(mutex_);
  EventRecordings recordings;
  for (const RecordedOp& op : ops_)
    if (op.event) recordings.emplace_back(op.event, op.event->begin_record());
  return recordings;
}

void CpuGraphExec::run(const EventRecordings& recordings) {
  std::lock_guard lock(mutex_);
  std::exception_ptr failure;
  std::size_t next_recording = 0;
  for (const RecordedOp& op : ops_) {
    if (!failure && op.task) {
      try {
        op.task();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (op.after) op.after();
    if (op.event && next_recording < recordings.size()) {
      const auto& [event, sequence] = recordings[next_recording++];
      event->mark(sequence);
    }
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
