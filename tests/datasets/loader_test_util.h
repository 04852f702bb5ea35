#pragma once
// Datasets and helpers shared by the DataLoader tests.
#include <dirent.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <ember/datasets/data_loader.h>
#include <ember/ember.h>

namespace ember::testing {

// The message of the ember::Error that f throws ("" when it throws none).
template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Threads of this process right now.
inline int count_threads() {
  int n = 0;
  DIR* dir = opendir("/proc/self/task");
  while (dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

// The thread count once it settles at `expected` (an exited thread can stay
// listed for a moment after join returns), or the last count after 5 s.
inline int count_threads_settled(int expected) {
  int n = count_threads();
  for (int i = 0; i < 5000 && n != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = count_threads();
  }
  return n;
}

// The thread count once it stops changing for 20 ms (threads of an earlier
// test that were just joined may still be listed).
inline int stable_thread_count() {
  int n = count_threads();
  for (int same = 0, i = 0; same < 20 && i < 5000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int m = count_threads();
    same = m == n ? same + 1 : 0;
    n = m;
  }
  return n;
}

// Runs an op that starts this thread's OpenMP team, so that later thread
// counts only see the loader's threads.
inline void warm_up_threads() { (void)(randn({1 << 18}) + 1).sum(); }

// A unique number per thread (std::thread::id values are reused after join).
inline int64_t thread_serial() {
  static std::atomic<int64_t> next{0};
  thread_local int64_t serial = next++;
  return serial;
}

inline void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

inline std::vector<int64_t> to_vector(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Sample i is i; get() runs `hook(i)` first and counts calls and how many run at once.
class CountingDataset : public datasets::Dataset<int64_t> {
 public:
  explicit CountingDataset(int64_t n, std::function<void(int64_t)> hook = nullptr) : n_(n), hook_(std::move(hook)) {}
  int64_t get(int64_t index) override {
    EMBER_CHECK(index >= 0 && index < n_, "CountingDataset: index ", index, " out of range");
    const int64_t now = ++active;
    int64_t seen = max_active.load();
    while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
    }
    ++calls;
    struct Leave {
      std::atomic<int64_t>& a;
      ~Leave() { --a; }
    } leave{active};
    if (hook_) hook_(index);
    return index;
  }
  int64_t size() const override { return n_; }

  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> active{0};
  std::atomic<int64_t> max_active{0};

 private:
  int64_t n_;
  std::function<void(int64_t)> hook_;
};

}  // namespace ember::testing
