// Measures the DataLoader's own cost (docs/datasets.md, "What we measured"):
//   overhead: microseconds per batch over a trivial dataset (get() returns its
//             index), for 0, 1, 2 workers, batch sizes 1 and 64, fresh and
//             persistent workers;
//   threads:  epochs of image-like samples (elementwise work in get()), alone
//             or while the caller runs a GEMM "training step" per batch, with
//             the workers' intra-op threads at the loader's default
//             (Note [Threads in workers]), forced to 1 inside get() (torch's
//             choice) or forced to the caller's count (what a loader that left
//             OpenMP alone would do).
// Build: cmake --build build --target ember_loader_overhead; run it on an idle machine.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ember/datasets/data_loader.h>
#include <ember/ember.h>

using namespace ember;
using namespace ember::datasets;

namespace {

class Trivial : public Dataset<int64_t> {
 public:
  explicit Trivial(int64_t n) : n_(n) {}
  int64_t get(int64_t index) override { return index; }
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
};

class Images : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  Images(int64_t n, int threads_in_get) : n_(n), threads_(threads_in_get) {}
  std::pair<Tensor, int64_t> get(int64_t index) override {
    if (threads_ > 0) omp_set_num_threads(threads_);
    Tensor x = rand({3, 224, 224});
    x = ((x - 0.5) / 0.25).flip({2}).clamp(-2, 2);  // normalize, flip, clamp: parallel elementwise work
    return {x, index % 10};
  }
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
  int threads_;
};

// CPU seconds (user + system) of the whole process so far.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Loader>
double epoch_seconds(Loader& loader) {
  auto t0 = std::chrono::steady_clock::now();
  int64_t n = 0;
  for (auto& batch : loader) n += 1 + 0 * batch.numel();
  return seconds_since(t0);
}

}  // namespace

int main() {
  std::printf("intra-op threads in the caller: %d\n", get_num_threads());
  std::printf("\n== overhead per batch, trivial dataset (median of 5 epochs) ==\n");
  std::printf("%-8s %-8s %-11s %-10s %s\n", "workers", "batch", "persistent", "batches", "us/batch");
  for (int64_t batch_size : {1, 64}) {
    const int64_t batches = batch_size == 1 ? 20000 : 2000;
    auto dataset = std::make_shared<Trivial>(batches * batch_size);
    for (int64_t workers : {0, 1, 2}) {
      for (bool persistent : {false, true}) {
        if (persistent && workers == 0) continue;
        DataLoader loader(dataset, {.batch_size = batch_size, .num_workers = workers,
                                    .persistent_workers = persistent, .seed = 0});
        std::vector<double> times;
        for (int epoch = 0; epoch < 6; ++epoch) times.push_back(epoch_seconds(loader));
        times.erase(times.begin());  // warm-up
        std::sort(times.begin(), times.end());
        std::printf("%-8lld %-8lld %-11s %-10lld %.2f\n", static_cast<long long>(workers),
                    static_cast<long long>(batch_size), persistent ? "yes" : "no", static_cast<long long>(batches),
                    times[2] / static_cast<double>(batches) * 1e6);
      }
    }
  }

  // Rounds alternate the two settings so that load from other processes hits
  // both alike; medians over the rounds.
  const int rounds = 11;
  std::printf("\n== worker intra-op threads: 256 samples 3x224x224, batch 16, median of %d alternating epochs ==\n",
              rounds);
  Tensor w = randn({384, 384});
  for (bool train : {false, true}) {
    std::printf("%s\n", train ? "with a GEMM step per batch in the caller (9 x [16,384]x[384,384])" : "loading only");
    for (int64_t workers : {1, 2, 4}) {
      struct Setting {
        const char* name;
        std::unique_ptr<DataLoader<std::pair<Tensor, int64_t>>> loader;
        std::vector<double> wall, cpu;
      };
      std::vector<Setting> settings;
      for (int forced : {0, 1, omp_get_max_threads()}) {
        static const std::string names[] = {"loader default", "1 (torch's)", "caller's"};
        const char* name = forced == 0 ? names[0].c_str() : forced == 1 ? names[1].c_str() : names[2].c_str();
        Setting s{name, nullptr, {}, {}};
        s.loader = std::make_unique<DataLoader<std::pair<Tensor, int64_t>>>(
            std::make_shared<Images>(256, forced),
            DataLoaderOptions{.batch_size = 16, .num_workers = workers, .persistent_workers = true, .seed = 0});
        settings.push_back(std::move(s));
      }
      for (int round = 0; round <= rounds; ++round) {
        for (size_t i = 0; i < settings.size(); ++i) {
          Setting& s = settings[(i + static_cast<size_t>(round)) % settings.size()];
          const double c0 = cpu_seconds();
          auto t0 = std::chrono::steady_clock::now();
          for (auto& [images, labels] : *s.loader) {
            if (!train) continue;
            Tensor h = images.view({16, -1}).narrow(1, 0, 384).matmul(w);
            for (int k = 0; k < 8; ++k) h = h.matmul(w).tanh();
          }
          if (round == 0) continue;  // warm-up
          s.wall.push_back(seconds_since(t0));
          s.cpu.push_back(cpu_seconds() - c0);
        }
      }
      for (Setting& s : settings) {
        std::sort(s.wall.begin(), s.wall.end());
        std::sort(s.cpu.begin(), s.cpu.end());
        std::printf("  workers %lld, threads per worker %-20s wall %.3f s [%.3f-%.3f], cpu %.3f s\n",
                    static_cast<long long>(workers), s.name, s.wall[rounds / 2], s.wall[rounds / 4],
                    s.wall[3 * rounds / 4], s.cpu[rounds / 2]);
      }
    }
  }
  return 0;
}
