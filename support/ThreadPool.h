//===- ThreadPool.h - Worker threads for workgroup grids ------------------===//
//
// The executor runs each dispatch as a grid of independent workgroups. This
// pool keeps a fixed set of threads asleep on a condition variable and, for
// one grid at a time, hands out workgroup indices from an atomic counter to
// the workers and to the calling thread. The first error wins (as in IREE's
// task scopes) and stops the hand-out of further indices.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_SUPPORT_THREADPOOL_H
#define JITRUN_SUPPORT_THREADPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jitrun {

/// A fixed pool of worker threads that runs index-space grids.
///
/// `numThreads` counts the caller: 1 means no worker threads and everything
/// runs on the calling thread; N means N-1 workers plus the caller, which
/// takes part in every parallelFor. Idle workers block on a condition
/// variable and use no CPU.
///
/// Concurrency: parallelFor may be called from several threads at once; the
/// calls are serialized (one grid runs at a time, the others wait on a
/// mutex). A parallelFor issued from inside a task of the same pool runs its
/// grid inline on that thread instead of deadlocking.
class ThreadPool {
public:
  /// Creates the pool; 0 means std::thread::hardware_concurrency(). If the
  /// system refuses to create a thread, the pool keeps the ones it got.
  explicit ThreadPool(unsigned numThreads);
  /// Wakes and joins every worker. No parallelFor may be running.
  ~ThreadPool();

  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// The threads for a pool that runs `items` tasks at once: one per item,
  /// at most one per core, at least one.
  static unsigned threadsFor(size_t items) {
    return static_cast<unsigned>(std::min<size_t>(
        std::max<size_t>(items, 1), std::max(1u, std::thread::hardware_concurrency())));
  }

  /// The number of threads that run a grid, the caller included (>= 1).
  unsigned numThreads() const {
    return static_cast<unsigned>(workers.size()) + 1;
  }

  /// Runs fn(i) exactly once for every i in [0, count) and returns when all
  /// calls have finished. Each thread owns an equal contiguous part of the
  /// indices (the caller the first) and runs it in chunks from the front,
  /// then takes chunks from the back of the parts of threads still busy.
  /// If a call returns an error, indices not yet started may be
  /// skipped; the first error is returned and later ones are consumed. An
  /// exception escaping fn becomes an error. count == 0 returns success at
  /// once; a negative count is an error.
  llvm::Error parallelFor(int64_t count,
                          llvm::function_ref<llvm::Error(int64_t)> fn);

private:
  struct Grid;
  static void runGrid(Grid &grid, unsigned self);
  void workerLoop(unsigned self);

  std::vector<std::thread> workers;
  /// Each thread's part of the grid in flight (Grid::take), allocated once:
  /// one grid at a time is submitted (submitMutex).
  std::unique_ptr<std::atomic<uint64_t>[]> gridParts;

  /// Serializes parallelFor calls.
  std::mutex submitMutex;

  /// Guards everything below; `wake` wakes workers, `idle` the submitter.
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable idle;
  Grid *current = nullptr;
  uint64_t generation = 0;
  bool stopping = false;
  /// `generation` (and `stopping` as ~0), readable without the mutex: idle
  /// workers spin on it for a short while before sleeping, because a model
  /// issues its next grid within microseconds and a condition-variable
  /// wake-up costs about as much as a small dispatch.
  std::atomic<uint64_t> published{0};
};

} // namespace jitrun

#endif // JITRUN_SUPPORT_THREADPOOL_H
