#pragma once
// Helpers of the ProcessGroupNCCL tests (test_nccl_*.cpp): GPU checks that
// skip cleanly, single-rank groups, error capture.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <ember/cuda/cuda.h>
#include <ember/distributed/hash_store.h>
#include <ember/distributed/process_group_nccl.h>
#include <ember/ember.h>

namespace ember::testing {

// Skips the test without a GPU, and with fewer GPUs than `ranks` (NCCL
// refuses two ranks of one communicator on one GPU).
#define EMBER_NCCL_REQUIRE_GPUS(ranks)                                                                          \
  do {                                                                                                          \
    if (::ember::cuda::device_count() < (ranks))                                                                \
      GTEST_SKIP() << ((ranks) == 1 ? std::string("needs a CUDA device")                                        \
                                    : "needs " + std::to_string(ranks) +                                        \
                                          " CUDA devices, one per rank (NCCL refuses two ranks on one GPU)")     \
                   << "; this machine has " << ::ember::cuda::device_count();                                   \
  } while (0)

// The message of the ember::Error f raises ("" when it raises none).
template <class F>
std::string nccl_error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

// Raises (failing a worker) unless text contains part.
inline void require_contains(const std::string& text, const std::string& part, const std::string& what) {
  if (text.find(part) == std::string::npos)
    throw ember::Error(what + ": expected the text to contain '" + part + "', got: '" + text + "'");
}

inline std::shared_ptr<distributed::ProcessGroupNCCL> single_rank_nccl_group(
    std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  return std::make_shared<distributed::ProcessGroupNCCL>(std::make_shared<distributed::HashStore>(), 0, 1,
                                                         distributed::ProcessGroupNCCLOptions{.timeout = timeout});
}

}  // namespace ember::testing
