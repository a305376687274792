// The worker threads that run the blocks of a launch, as the multiprocessors
// of a GPU do: CUDAKIT_CPU_THREADS of them (default: every core), the thread
// that submits a launch being one. Several launches (from several streams)
// may share the pool at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace cudakit::detail::cpu {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run blocks, the caller of parallel_for included.
  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls body(context, i) for every i in [0, count), spread over the pool
  // and the calling thread; returns when all are done. After the first
  // exception the remaining items are skipped and it is rethrown here.
  void parallel_for(unsigned long long count, void (*body)(void*, unsigned long long),
                    void* context);

 private:
  struct Job {
    void (*body)(void*, unsigned long long);
    void* context;
    unsigned long long count;
    std::atomic<unsigned long long> next{0};
    std::atomic<unsigned long long> finished{0};
    std::atomic<bool> failed{false};
    unsigned active = 0;  // pool threads working on it (guarded by the pool's mutex)
    std::exception_ptr error;
    std::mutex error_mutex;
  };
  // Runs items of `job` until none are left to claim.
  static void work_on(Job& job);
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::list<Job*> jobs_;
  bool stop_ = false;
};

// CUDAKIT_CPU_THREADS, else the number of cores.
unsigned configured_thread_count();

}  // namespace cudakit::detail::cpu
