// Note [OpenMP spin time]
// libgomp keeps the threads of an idle team spinning for about 3 ms
// (GOMP_SPINCOUNT 300000) before they sleep, and a thread that finishes its
// share of a parallel region spins at the barrier until the others arrive.
// When the cores are shared (with a build running beside the program, or with
// the program's own DataLoader workers), the spinning threads take the core
// from the thread doing the work, or are descheduled while the others wait for
// them, and parallel regions stall for scheduler time slices: an ember-train
// epoch took 58 s instead of 6.5 s, with 75% of the process's cycles in
// libgomp's spin loop (libtorch and torch in Python stall the same way). A
// short spin (20000 iterations, ~0.2 ms) keeps back-to-back regions fast and
// lets idle threads sleep before they fight for the cores. Its price on a
// quiet machine: the nn benchmark suite (57 workloads, many small parallel
// regions) ran 6% faster on Ember's side with libgomp's default (geometric
// mean; from 0.49x to 1.46x per workload, the libtorch side 8% faster too,
// since it shares the process's libgomp), against 4-10x slower when shared.
//
// libgomp reads its settings once, in its own initializer, before any code of
// a library that uses it runs, so Ember's libraries cannot change them; and a
// program's .preinit_array functions, which run before every initializer, run
// before libc's too, which then resets the environment to the one the kernel
// passed (so a setenv there is lost). What works is to start over: a program
// that links Ember::omp_defaults (Ember's apps, tests, benchmarks, examples)
// re-executes itself from its .preinit_array, before any library has
// initialized, with GOMP_SPINCOUNT=20000 added to its environment. Nothing
// happens when the user set GOMP_SPINCOUNT or OMP_WAIT_POLICY (their choice
// wins), under valgrind (an exec would leave it), or when /proc/self/exe
// cannot be executed (the program then runs with libgomp's defaults).
// docs/architecture.md has the measurements.
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace {

constexpr char kSetting[] = "GOMP_SPINCOUNT=20000";
constexpr size_t kMaxEnv = 8192;
// Static: no allocation this early (malloc has not been set up by libc's
// initializer yet, and none is needed).
char* new_environment[kMaxEnv];

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

void restart_with_short_spin(int, char** argv, char** envp) {
  size_t n = 0;
  for (char** e = envp; *e != nullptr; ++e) {
    if (starts_with(*e, "GOMP_SPINCOUNT=") || starts_with(*e, "OMP_WAIT_POLICY=")) return;
    if (starts_with(*e, "LD_PRELOAD=") && std::strstr(*e, "vgpreload") != nullptr) return;  // valgrind
    if (n + 2 >= kMaxEnv) return;
    new_environment[n++] = *e;
  }
  new_environment[n++] = const_cast<char*>(kSetting);
  new_environment[n] = nullptr;
  execve("/proc/self/exe", argv, new_environment);
  // Only reached when the exec failed: carry on with libgomp's defaults.
}

}  // namespace

// The linker keeps this object only when something refers to it:
// Ember::omp_defaults passes -u ember_omp_spin_defaults. (Declared extern
// first: a const object at namespace scope would otherwise have internal
// linkage, and -u could not name it.)
extern "C" void (*const ember_omp_spin_defaults)(int, char**, char**);
extern "C" [[gnu::used, gnu::section(".preinit_array")]] void (*const ember_omp_spin_defaults)(int, char**, char**) =
    &restart_with_short_spin;
