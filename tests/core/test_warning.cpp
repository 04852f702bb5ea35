// ember::warn and its handlers (core/include/ember/core/warning.h).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include <ember/core/warning.h>

namespace ember {
namespace warning_test {

// Restores the process-wide handler on scope exit, whatever a test does.
struct RestoreProcessHandler {
  ~RestoreProcessHandler() { set_warning_handler({}); }
};

TEST(Warning, DefaultPrintsOneLineToStderr) {
  RestoreProcessHandler restore;
  set_warning_handler({});
  ::testing::internal::CaptureStderr();
  warn("read_video: something to know");
  EMBER_WARN("op: value ", 42, " and ", 1.5);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "Ember warning: read_video: something to know\nEmber warning: op: value 42 and 1.5\n");
}

TEST(Warning, CaptureCollectsInOrderAndNests) {
  ::testing::internal::CaptureStderr();
  {
    WarningCapture outer;
    warn("first");
    {
      WarningCapture inner;
      warn("second");
      EXPECT_EQ(inner.messages(), std::vector<std::string>{"second"});
    }
    warn("third");
    EXPECT_EQ(outer.messages(), (std::vector<std::string>{"first", "third"}));
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // nothing printed while captured
}

TEST(Warning, ProcessHandlerSeesEveryThreadGuardsOnlyTheirOwn) {
  RestoreProcessHandler restore;
  std::atomic<int> process_wide{0};
  const WarningHandler previous = set_warning_handler([&](const std::string&) { ++process_wide; });
  EXPECT_FALSE(previous);  // the default
  WarningCapture mine;     // this thread only
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 100; ++i) warn("from a worker");
    });
  }
  for (auto& th : threads) th.join();
  warn("from the main thread");
  EXPECT_EQ(process_wide.load(), 400);
  EXPECT_EQ(mine.messages(), std::vector<std::string>{"from the main thread"});
  // set_warning_handler returns the handler it replaces.
  const WarningHandler replaced = set_warning_handler({});
  ASSERT_TRUE(replaced);
  replaced("direct call");
  EXPECT_EQ(process_wide.load(), 401);
}

TEST(Warning, ThrowingHandlerTurnsWarningsIntoErrors) {
  WarningHandlerGuard as_errors([](const std::string& m) { throw Error("warning as error: " + m); });
  try {
    warn("partial result");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "warning as error: partial result");
  }
}

TEST(Warning, EmptyGuardPrintsWhateverTheProcessHandler) {
  RestoreProcessHandler restore;
  int process_wide = 0;
  set_warning_handler([&](const std::string&) { ++process_wide; });
  ::testing::internal::CaptureStderr();
  {
    WarningHandlerGuard print({});
    warn("printed");
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "Ember warning: printed\n");
  EXPECT_EQ(process_wide, 0);
}

}  // namespace warning_test
}  // namespace ember
