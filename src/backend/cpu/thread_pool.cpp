#include "backend/cpu/thread_pool.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace cudakit::detail::cpu {

unsigned configured_thread_count() {
  static const unsigned count = [] {
    unsigned hw = std::thread::hardware_concurrency();
    if (hw == 0) hw = 1;
    if (const char* v = std::getenv("CUDAKIT_CPU_THREADS"); v && *v) {
      char* end = nullptr;
      errno = 0;
      const long n = std::strtol(v, &end, 10);
      if (errno == 0 && end != v && *end == '\0' && n >= 1 && n <= 4096)
        return static_cast<unsigned>(n);
      // Read once per process (a static), so the warning is printed once.
      std::fprintf(stderr,
                   "cudakit: warning: CUDAKIT_CPU_THREADS='%s' is not a thread count from 1 to "
                   "4096; using %u (the number of cores)\n",
                   v, hw);
    }
    return hw;
  }();
  return count;
}

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work_on(Job& job) {
  for (;;) {
    unsigned long long i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.count) break;
    if (!job.failed.load(std::memory_order_relaxed)) {
      try {
        job.body(job.context, i);
      } catch (...) {
        std::lock_guard lock(job.error_mutex);
        if (!job.error) job.error = std::current_exception();
        job.failed.store(true, std::memory_order_relaxed);
      }
    }
    job.finished.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::worker_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    Job* job = jobs_.front();
    if (job->next.load(std::memory_order_relaxed) >= job->count) {
      jobs_.pop_front();  // handed out entirely; the others finish it
      continue;
    }
    // Counted under the lock, so the submitter cannot return (and destroy
    // the job) while this thread may still touch it.
    ++job->active;
    lock.unlock();
    work_on(*job);
    lock.lock();
    --job->active;
    done_cv_.notify_all();
  }
}

void ThreadPool::parallel_for(unsigned long long count, void (*body)(void*, unsigned long long),
                              void* context) {
  if (count == 0) return;
  Job job;
  job.body = body;
  job.context = context;
  job.count = count;
  const bool share = !workers_.empty() && count > 1;
  if (share) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(&job);
    }
    work_cv_.notify_all();
  }
  work_on(job);
  if (share) {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] {
      return job.finished.load(std::memory_order_acquire) == count && job.active == 0;
    });
    jobs_.remove(&job);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace cudakit::detail::cpu
