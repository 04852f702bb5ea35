// Where workloads put files for external peers, and where the peer scripts are.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench.h"

namespace ember_bench {

namespace {

// Owns the run's scratch folder; removes it at exit (static destruction).
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ember_bench.XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a scratch folder " + pattern);
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

std::string source_dir() { return EMBER_BENCH_SOURCE_DIR; }

void write_raw_tensor(const std::string& path, const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous();
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string shape_json(const ember::Tensor& t) {
  std::string shape = "[";
  for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
  return shape + "]";
}

std::string peer_python() {
  const char* p = std::getenv("EMBER_BENCH_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

}  // namespace ember_bench
