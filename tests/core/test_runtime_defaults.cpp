// Ember::omp_defaults (Note [OpenMP spin time]): a program linking it runs
// with GOMP_SPINCOUNT=20000 set before libgomp initializes, unless the user
// chose a wait policy or a spin count (or it runs under valgrind).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace {

// libgomp's settings as printed at start-up by this same program, run again
// with only a trivial test, an environment cleared of the user's OpenMP
// choices (and of valgrind's preload) and then given `extra`.
std::string child_omp_settings(const std::string& extra) {
  const std::string command = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u LD_PRELOAD " + extra +
                              " OMP_DISPLAY_ENV=verbose /proc/" + std::to_string(::getpid()) +
                              "/exe --gtest_filter=RuntimeDefaults.Nothing 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  EXPECT_EQ(pclose(pipe), 0) << output;
  return output;
}

}  // namespace

// A program linking Ember::omp_defaults restarts with a short spin, which
// libgomp takes (Note [OpenMP spin time]).
TEST(RuntimeDefaults, ProgramsStartWithAShortOpenMPSpin) {
  const std::string output = child_omp_settings("");
  EXPECT_NE(output.find("GOMP_SPINCOUNT = '20000'"), std::string::npos) << output;
}

// The user's own spin count or wait policy wins.
TEST(RuntimeDefaults, TheUsersChoiceWins) {
  const std::string spin = child_omp_settings("GOMP_SPINCOUNT=12345");
  EXPECT_NE(spin.find("GOMP_SPINCOUNT = '12345'"), std::string::npos) << spin;
  const std::string passive = child_omp_settings("OMP_WAIT_POLICY=passive");
  EXPECT_NE(passive.find("OMP_WAIT_POLICY = 'PASSIVE'"), std::string::npos) << passive;
  EXPECT_EQ(passive.find("GOMP_SPINCOUNT = '20000'"), std::string::npos) << passive;
}

TEST(RuntimeDefaults, Nothing) {}
