// ParallelFor: body(i) for i in [0, n) on up to `threads` threads, indices
// handed out in order. Callers write each result to its own slot, so the
// outcome does not depend on scheduling (the planner's determinism).
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace az {

inline void ParallelFor(int n, int threads, const std::function<void(int)>& body) {
  threads = std::max(1, std::min(threads, n));
  if (threads == 1) {
    for (int i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) body(i);
    });
  }
  for (std::thread& thread : pool) thread.join();
}

}  // namespace az
