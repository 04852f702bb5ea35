// Ember::omp_defaults (Note [OpenMP spin time]): a program linking it runs
// with GOMP_SPINCOUNT=20000 set before libgomp initializes, unless the user
// chose a wait policy or a spin count (or it runs under valgrind).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

bool user_chose_or_valgrind() {
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  const char* preload = std::getenv("LD_PRELOAD");
  return std::getenv("OMP_WAIT_POLICY") != nullptr || (spin != nullptr && std::string(spin) != "20000") ||
         (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr);
}

}  // namespace

TEST(RuntimeDefaults, ProgramsStartWithAShortOpenMPSpin) {
  if (user_chose_or_valgrind()) GTEST_SKIP() << "the OpenMP wait policy or spin count was chosen by the user";
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  ASSERT_NE(spin, nullptr);
  EXPECT_STREQ(spin, "20000");

  // libgomp itself took it: its settings, printed at start-up, of this same
  // program run again with nothing but a trivial test.
  const std::string command = "OMP_DISPLAY_ENV=verbose /proc/" + std::to_string(::getpid()) +
                              "/exe --gtest_filter=RuntimeDefaults.Nothing 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("GOMP_SPINCOUNT = '20000'"), std::string::npos) << output;
}

TEST(RuntimeDefaults, Nothing) {}
