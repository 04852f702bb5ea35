#pragma once
// Helpers of the <ember/torch.h> tests.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <ember/core/error.h>
#include <gtest/gtest.h>

namespace ember_test {

// The message of the ember::Error that f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

// ../shared/data/<relative> beside the repository or its worktree
// (EMBER_SHARED_DATA overrides ../shared/data); "" when absent.
inline std::string shared_data(const std::string& relative) {
  if (const char* env = std::getenv("EMBER_SHARED_DATA")) {
    const std::string p = std::string(env) + "/" + relative;
    return std::filesystem::exists(p) ? p : "";
  }
  const std::string repo = std::string(EMBER_TEST_DATA_DIR) + "/../..";
  for (const char* up : {"/..", "/../.."}) {
    const std::string candidate = repo + up + "/shared/data/" + relative;
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

}  // namespace ember_test

#define EXPECT_ERROR_WITH(statement, ...)                                            \
  do {                                                                               \
    const std::string _msg = ::ember_test::error_of([&] { (void)(statement); });     \
    EXPECT_FALSE(_msg.empty()) << "no ember::Error from " #statement;                \
    for (const char* _part : {__VA_ARGS__})                                          \
      EXPECT_NE(_msg.find(_part), std::string::npos)                                 \
          << "message \"" << _msg << "\" lacks \"" << _part << "\"";                 \
  } while (0)
