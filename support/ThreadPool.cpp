//===- ThreadPool.cpp - Worker threads for workgroup grids ----------------===//
//
// One grid at a time: the submitter publishes a Grid under the mutex, wakes
// as many workers as there are chunks to share, runs chunks itself, then
// waits until every worker that joined the grid has left it (polling for a
// while first). Workers poll for the next grid for a while, then sleep on a
// condition variable, so an idle pool costs no CPU.
//
// Each thread owns a contiguous part of the grid, the same part of every
// grid (the submitter the first, worker i the i+1-th): a dispatch whose
// workgroups split an image's rows runs the rows the previous dispatch wrote
// on the same core, from that core's cache. Handed out from one counter,
// about half of each dispatch's input came from the other core's cache:
// MobileNetV3-Small's stride-2 depthwise convolutions ran slower on two
// threads than on one. A thread done with its part takes chunks from the
// back of the others'.
//
//===----------------------------------------------------------------------===//

#include "support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <system_error>

using namespace jitrun;

/// One parallelFor in flight.
struct ThreadPool::Grid {
  /// Given `parts` (the pool's, one word per thread), `threads` contiguous
  /// parts of [0, count); without (a grid run inline) or past 2^32 indices,
  /// one counter for all.
  Grid(const ThreadPool *pool, int64_t count, uint64_t chunk,
       std::atomic<uint64_t> *parts, unsigned threads,
       llvm::function_ref<llvm::Error(int64_t)> fn)
      : pool(pool), count(static_cast<uint64_t>(count)), chunk(chunk), fn(fn),
        parts(this->count > UINT32_MAX ? nullptr : parts),
        numParts(this->parts ? threads : 1) {
    for (unsigned p = 0; this->parts && p < numParts; ++p)
      this->parts[p].store(pack(this->count * p / numParts, this->count * (p + 1) / numParts),
                           std::memory_order_relaxed);
  }

  /// A part's indices not handed out yet, [begin, end), in one word so that
  /// its owner (from the front) and others (from the back) take them with
  /// one compare-and-swap.
  static uint64_t pack(uint64_t begin, uint64_t end) { return begin << 32 | end; }

  /// Takes up to `chunk` indices from the front or back of part `p` into
  /// [begin, end); false once the part is empty.
  bool take(unsigned p, bool front, uint64_t &begin, uint64_t &end) {
    if (!parts) {
      begin = next.fetch_add(chunk, std::memory_order_relaxed);
      end = std::min(count, begin + chunk);
      return begin < count;
    }
    uint64_t v = parts[p].load(std::memory_order_relaxed);
    while (true) {
      uint64_t lo = v >> 32, hi = v & UINT32_MAX;
      if (lo >= hi)
        return false;
      uint64_t n = std::min(chunk, hi - lo);
      if (parts[p].compare_exchange_weak(v, front ? pack(lo + n, hi) : pack(lo, hi - n),
                                         std::memory_order_relaxed)) {
        begin = front ? lo : hi - n;
        end = begin + n;
        return true;
      }
    }
  }

  const ThreadPool *pool;
  const uint64_t count;
  const uint64_t chunk;
  llvm::function_ref<llvm::Error(int64_t)> fn;
  std::atomic<uint64_t> *const parts;
  const unsigned numParts;
  /// Without parts: the next index to hand out. Unsigned: overshooting
  /// `count` by a few chunks must not overflow.
  std::atomic<uint64_t> next{0};
  /// Set once an error is recorded; stops the hand-out.
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  llvm::Error firstError = llvm::Error::success();

  /// Workers currently inside runGrid (until they are done touching the
  /// grid); changed under ThreadPool::mutex, polled by the submitter
  /// without it before it sleeps until the workers leave.
  std::atomic<unsigned> activeWorkers{0};
};

/// The pool whose task the current thread is running, to run nested
/// parallelFor calls inline instead of deadlocking on submitMutex.
static thread_local const ThreadPool *activePool = nullptr;

/// Calls fn(i), turning an escaping exception into an error.
static llvm::Error callTask(llvm::function_ref<llvm::Error(int64_t)> fn,
                            int64_t i) {
#if defined(__cpp_exceptions)
  try {
    return fn(i);
  } catch (const std::exception &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "parallelFor task %lld threw an exception: "
                                   "%s",
                                   static_cast<long long>(i), e.what());
  } catch (...) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "parallelFor task %lld threw an exception",
                                   static_cast<long long>(i));
  }
#else
  return fn(i);
#endif
}

void ThreadPool::runGrid(Grid &grid, unsigned self) {
  const ThreadPool *outer = activePool;
  activePool = grid.pool;
  // Its own part first, from the front; then the others' from the back.
  unsigned home = self % grid.numParts, part = home;
  bool front = true;
  while (!grid.failed.load(std::memory_order_relaxed)) {
    uint64_t begin, end;
    if (!grid.take(part, front, begin, end)) {
      part = (part + 1) % grid.numParts;
      front = false;
      if (part == home)
        break;
      continue;
    }
    for (uint64_t i = begin; i < end; ++i) {
      if (grid.failed.load(std::memory_order_relaxed))
        break;
      llvm::Error err = callTask(grid.fn, static_cast<int64_t>(i));
      if (!err)
        continue;
      std::lock_guard<std::mutex> lock(grid.errorMutex);
      if (grid.firstError) {
        llvm::consumeError(std::move(err));
      } else {
        grid.firstError = std::move(err);
        grid.failed.store(true, std::memory_order_relaxed);
      }
      break;
    }
  }
  activePool = outer;
}

ThreadPool::ThreadPool(unsigned numThreads) {
  unsigned n = numThreads ? numThreads : std::thread::hardware_concurrency();
  if (n == 0)
    n = 1;
  workers.reserve(n - 1);
  for (unsigned i = 1; i < n; ++i) {
#if defined(__cpp_exceptions)
    try {
      workers.emplace_back([this, i] { workerLoop(i); });
    } catch (const std::exception &) {
      break; // Keep the threads we have; numThreads() reports them.
    }
#else
    workers.emplace_back([this, i] { workerLoop(i); });
#endif
  }
  gridParts.reset(new std::atomic<uint64_t>[workers.size() + 1]);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
    published.store(~uint64_t{0}, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

/// How long an idle worker polls for the next grid before it sleeps.
static constexpr std::chrono::microseconds kSpinTime{200};

void ThreadPool::workerLoop(unsigned self) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    if (!stopping && !(current && generation != seen)) {
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + kSpinTime;
      for (unsigned i = 0; published.load(std::memory_order_acquire) == seen; ++i) {
        if ((i & 63) == 0 && std::chrono::steady_clock::now() >= until)
          break;
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
      }
      lock.lock();
    }
    wake.wait(lock,
              [&] { return stopping || (current && generation != seen); });
    if (stopping)
      return;
    seen = generation;
    Grid *grid = current;
    ++grid->activeWorkers;
    lock.unlock();
    runGrid(*grid, self);
    lock.lock();
    // The submitter frees `grid` once it sees zero; do not touch it after.
    if (--grid->activeWorkers == 0)
      idle.notify_all();
  }
}

llvm::Error
ThreadPool::parallelFor(int64_t count,
                        llvm::function_ref<llvm::Error(int64_t)> fn) {
  if (count < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "parallelFor: negative count %lld",
                                   static_cast<long long>(count));
  if (count == 0)
    return llvm::Error::success();

  // No workers, a single index, or a nested call: run inline.
  if (workers.empty() || count == 1 || activePool == this) {
    Grid grid(this, count, static_cast<uint64_t>(count), /*parts=*/nullptr, 1, fn);
    runGrid(grid, 0);
    return std::move(grid.firstError);
  }

  std::lock_guard<std::mutex> submit(submitMutex);
  // About four chunks per thread balances uneven workgroups against the
  // cost of the atomic hand-out.
  uint64_t threads = numThreads();
  uint64_t chunk =
      std::max<uint64_t>(1, static_cast<uint64_t>(count) / (threads * 4));
  uint64_t chunks = (static_cast<uint64_t>(count) + chunk - 1) / chunk;
  Grid grid(this, count, chunk, gridParts.get(), static_cast<unsigned>(threads), fn);
  {
    std::lock_guard<std::mutex> lock(mutex);
    current = &grid;
    ++generation;
    published.store(generation, std::memory_order_release);
  }
  uint64_t helpers = std::min<uint64_t>(workers.size(), chunks - 1);
  if (helpers == workers.size())
    wake.notify_all();
  else
    for (uint64_t i = 0; i < helpers; ++i)
      wake.notify_one();

  runGrid(grid, 0);

  // The workers' last chunks usually end within microseconds of the
  // submitter's: poll for a short while before sleeping, as idle workers do.
  // Asleep, the submitter waited for a wake-up after every grid, and a model
  // of many small dispatches lost most of its second thread to it (2
  // threads: MobileNetV3-Small 0.70x the time with the poll, ShuffleNetV2
  // 0.82x, EfficientNet-B0 0.82-0.90x, ResNet-50 0.96x). The mutex and
  // activeWorkers below stay the authority; the poll reads the count the
  // workers drop under the mutex (a count dropped before they took it, as
  // the poll once read, let a submitter take the mutex in between and sleep
  // after 14 % of Inception v3's grids at 2 threads; 0.1 % now).
  auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (unsigned i = 0; grid.activeWorkers.load(std::memory_order_acquire) != 0; ++i) {
    if ((i & 63) == 0 && std::chrono::steady_clock::now() >= until)
      break;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    current = nullptr;
    idle.wait(lock, [&] { return grid.activeWorkers == 0; });
  }
  return std::move(grid.firstError);
}
