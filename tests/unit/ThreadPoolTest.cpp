//===- ThreadPoolTest.cpp - The worker pool that runs workgroup grids -----===//
//
// Exactly-once execution over sweeps of grid sizes and thread counts, first
// error wins, exceptions become errors, concurrent and nested submission,
// real parallelism, caller-only execution for one thread, and an idle pool
// that burns no CPU.
//
//===----------------------------------------------------------------------===//

#include "support/ThreadPool.h"

#include "TestUtil.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace jitrun;
using jitrun::test::errorMessage;

static llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// CPU time used by the whole process so far, in milliseconds.
static double processCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 +
         static_cast<double>(ts.tv_nsec) / 1e6;
}

TEST_CASE("parallelFor runs every index exactly once", "[threadpool]") {
  unsigned threads = GENERATE(1u, 2u, 3u, 8u);
  int64_t count = GENERATE(as<int64_t>{}, 0, 1, 7, 1000, 100000);
  ThreadPool pool(threads);
  CHECK(pool.numThreads() == threads);
  std::unique_ptr<std::atomic<int>[]> hits(
      new std::atomic<int>[static_cast<size_t>(count) + 1]);
  for (int64_t i = 0; i <= count; ++i)
    hits[i] = 0;
  std::atomic<int64_t> calls{0};
  llvm::Error err = pool.parallelFor(count, [&](int64_t i) -> llvm::Error {
    if (i < 0 || i >= count)
      return failure("index out of range: " + std::to_string(i));
    hits[i].fetch_add(1);
    calls.fetch_add(1);
    return llvm::Error::success();
  });
  REQUIRE(errorMessage(std::move(err)).empty());
  CHECK(calls.load() == count);
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i)
    wrong += hits[i].load() != 1;
  CHECK(wrong == 0);

  // The pool is reusable.
  std::atomic<int64_t> again{0};
  REQUIRE(errorMessage(pool.parallelFor(count, [&](int64_t) {
            again.fetch_add(1);
            return llvm::Error::success();
          })).empty());
  CHECK(again.load() == count);
}

TEST_CASE("parallelFor returns the first error", "[threadpool]") {
  SECTION("one failing workgroup surfaces") {
    unsigned threads = GENERATE(1u, 2u, 8u);
    ThreadPool pool(threads);
    std::string message =
        errorMessage(pool.parallelFor(1000, [&](int64_t i) -> llvm::Error {
          if (i == 617)
            return failure("workgroup 617 failed");
          return llvm::Error::success();
        }));
    CHECK(message == "workgroup 617 failed");
  }
  SECTION("on one thread the lowest failing index wins") {
    ThreadPool pool(1);
    std::atomic<int> ran{0};
    std::string message =
        errorMessage(pool.parallelFor(100, [&](int64_t i) -> llvm::Error {
          ++ran;
          if (i == 3 || i == 7)
            return failure("failed at " + std::to_string(i));
          return llvm::Error::success();
        }));
    CHECK(message == "failed at 3");
    CHECK(ran.load() == 4); // The rest of the grid is skipped.
  }
  SECTION("when every workgroup fails, one error is returned") {
    unsigned threads = GENERATE(2u, 4u, 8u);
    ThreadPool pool(threads);
    std::atomic<int> failures{0};
    std::string message =
        errorMessage(pool.parallelFor(10000, [&](int64_t i) -> llvm::Error {
          ++failures;
          std::this_thread::yield();
          return failure("failed at " + std::to_string(i));
        }));
    CHECK_THAT(message, Catch::StartsWith("failed at "));
    CHECK(message.find('\n') == std::string::npos);
    CHECK(failures.load() >= 1);
    CHECK(failures.load() < 10000); // Remaining indices were skipped.
    // The pool still works after an error.
    std::atomic<int> ok{0};
    REQUIRE(errorMessage(pool.parallelFor(500, [&](int64_t) {
              ++ok;
              return llvm::Error::success();
            })).empty());
    CHECK(ok.load() == 500);
  }
  SECTION("exceptions become errors") {
    unsigned threads = GENERATE(1u, 4u);
    ThreadPool pool(threads);
    std::string message =
        errorMessage(pool.parallelFor(100, [&](int64_t i) -> llvm::Error {
          if (i == 50)
            throw std::runtime_error("boom");
          return llvm::Error::success();
        }));
    CHECK_THAT(message, Catch::Contains("boom"));
    CHECK_THAT(message, Catch::Contains("50"));
  }
  SECTION("a negative count is an error") {
    ThreadPool pool(2);
    CHECK_THAT(errorMessage(pool.parallelFor(
                   -1, [](int64_t) { return llvm::Error::success(); })),
               Catch::Contains("negative"));
  }
}

TEST_CASE("parallelFor from 4 threads at once", "[threadpool]") {
  unsigned threads = GENERATE(1u, 3u, 8u);
  ThreadPool pool(threads);
  constexpr int kSubmitters = 4, kRounds = 50, kCount = 1000;
  std::atomic<int64_t> sums[kSubmitters];
  std::atomic<int> errors{0};
  for (auto &s : sums)
    s = 0;
  std::vector<std::thread> submitters;
  for (int s = 0; s < kSubmitters; ++s) {
    submitters.emplace_back([&, s] {
      for (int round = 0; round < kRounds; ++round) {
        llvm::Error err = pool.parallelFor(kCount, [&](int64_t i) {
          sums[s].fetch_add(i + 1);
          return llvm::Error::success();
        });
        if (err) {
          llvm::consumeError(std::move(err));
          ++errors;
        }
      }
    });
  }
  for (std::thread &t : submitters)
    t.join();
  CHECK(errors.load() == 0);
  for (auto &s : sums)
    CHECK(s.load() == int64_t(kRounds) * kCount * (kCount + 1) / 2);
}

TEST_CASE("nested parallelFor on the same pool runs inline", "[threadpool]") {
  ThreadPool pool(4);
  std::atomic<int> inner{0};
  REQUIRE(errorMessage(pool.parallelFor(8, [&](int64_t) {
            return pool.parallelFor(10, [&](int64_t) {
              ++inner;
              return llvm::Error::success();
            });
          })).empty());
  CHECK(inner.load() == 80);
}

TEST_CASE("one thread runs everything on the caller", "[threadpool]") {
  ThreadPool pool(1);
  CHECK(pool.numThreads() == 1);
  std::thread::id caller = std::this_thread::get_id();
  int64_t others = 0; // Plain counter: only the caller may touch it.
  REQUIRE(errorMessage(pool.parallelFor(1000, [&](int64_t) {
            if (std::this_thread::get_id() != caller)
              ++others;
            return llvm::Error::success();
          })).empty());
  CHECK(others == 0);
}

TEST_CASE("workers really run in parallel with the caller", "[threadpool]") {
  // Two tasks that each wait for the other: only finishes if both run at
  // the same time (bounded wait, so a broken pool fails instead of hanging).
  ThreadPool pool(2);
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::set<std::thread::id> ids;
  std::atomic<bool> bothSeen{true};
  REQUIRE(errorMessage(pool.parallelFor(2, [&](int64_t) {
            std::unique_lock<std::mutex> lock(m);
            ++arrived;
            ids.insert(std::this_thread::get_id());
            cv.notify_all();
            if (!cv.wait_for(lock, std::chrono::seconds(10),
                             [&] { return arrived == 2; }))
              bothSeen = false;
            return llvm::Error::success();
          })).empty());
  CHECK(bothSeen.load());
  CHECK(ids.size() == 2);
}

TEST_CASE("each thread runs its own contiguous part, then the back of the other's",
          "[threadpool]") {
  // Two threads, 64 indices in chunks of 8: the caller owns [0, 32), the
  // worker [32, 64). Each runs its part from the front; whoever is done
  // first takes chunks from the back of the other's. So within each part the
  // owner ran a prefix and the other thread a suffix, whatever the timing;
  // uneven task times make the thief's share vary from run to run.
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::thread::id> ranBy(64);
    std::atomic<bool> firstStarted{false};
    REQUIRE(errorMessage(pool.parallelFor(64, [&](int64_t i) {
              if (i == 0)
                firstStarted = true;
              // The worker's part waits for the caller's first task (bounded),
              // so the worker cannot finish its part and take index 0 first.
              auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
              while (i >= 32 && !firstStarted && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
              if ((i * 7 + trial) % 5 == 0)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
              ranBy[i] = std::this_thread::get_id();
              return llvm::Error::success();
            })).empty());
    INFO("trial " << trial);
    CHECK(ranBy[0] == caller);
    for (int64_t part = 0; part < 2; ++part) {
      std::thread::id owner = ranBy[part * 32];
      int64_t i = part * 32;
      while (i < part * 32 + 32 && ranBy[i] == owner)
        ++i;
      for (; i < part * 32 + 32; ++i)
        CHECK(ranBy[i] != owner); // the rest: a suffix run by the other thread
    }
  }
}

TEST_CASE("0 threads means hardware concurrency", "[threadpool]") {
  ThreadPool pool(0);
  unsigned expected = std::max(1u, std::thread::hardware_concurrency());
  CHECK(pool.numThreads() == expected);
}

TEST_CASE("an idle pool uses no CPU", "[threadpool]") {
  ThreadPool pool(8);
  // Make sure every worker has started and gone back to sleep.
  std::atomic<int> warm{0};
  REQUIRE(errorMessage(pool.parallelFor(10000, [&](int64_t) {
            ++warm;
            return llvm::Error::success();
          })).empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double before = processCpuMs();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  double used = processCpuMs() - before;
  INFO("CPU time while idle: " << used << " ms");
  CHECK(used < 30.0);
}
