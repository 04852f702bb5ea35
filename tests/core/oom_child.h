#pragma once
// Out-of-memory tests run the operation in a child process under an
// address-space limit (setrlimit(RLIMIT_AS)): this same test program, started
// again with only a "child" test selected and the case in its environment.
// The child prints one line, "LOADED", "ERROR: <ember::Error text>" or
// "OTHER: <what>", which the parent checks. Under AddressSanitizer an
// address-space limit means nothing (its shadow memory is reserved up
// front), so these tests skip there.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include <ember/core/error.h>

#if defined(__SANITIZE_ADDRESS__)
#define EMBER_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_TEST_UNDER_ASAN 1
#endif
#endif

namespace ember::testing {

inline bool under_asan() {
#ifdef EMBER_TEST_UNDER_ASAN
  return true;
#else
  return false;
#endif
}

// Runs this program's test `child_test` with EMBER_OOM_CASE=which and
// EMBER_OOM_FILE=file; returns its output.
inline std::string run_oom_child(const std::string& child_test, const std::string& which, const std::string& file) {
  const std::string command = "EMBER_OOM_CASE='" + which + "' EMBER_OOM_FILE='" + file + "' /proc/" +
                              std::to_string(::getpid()) + "/exe --gtest_filter=" + child_test + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  pclose(pipe);
  return output;
}

// The child's side: limits the address space to what the process maps now
// plus `headroom` bytes, runs f and prints the outcome line.
inline void run_limited(uint64_t headroom, const std::function<void()>& f) {
  uint64_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t limit = static_cast<rlim_t>(pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) + headroom);
  const rlimit rl{limit, limit};
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &rl), 0);
  std::string line;
  try {
    f();
    line = "LOADED";
  } catch (const Error& e) {
    line = std::string("ERROR: ") + e.what();
  } catch (const std::exception& e) {
    line = std::string("OTHER: ") + typeid(e).name() + ": " + e.what();
  }
  std::printf("\n%s\n", line.c_str());
  std::fflush(stdout);
}

// The outcome line of a child's output ("" when it printed none: it crashed).
inline std::string outcome(const std::string& output) {
  for (const char* tag : {"\nLOADED", "\nERROR: ", "\nOTHER: "}) {
    const size_t at = output.find(tag);
    if (at != std::string::npos) return output.substr(at + 1, output.find('\n', at + 1) - at - 1);
  }
  return "";
}

}  // namespace ember::testing
