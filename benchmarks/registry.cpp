// The workload registry, filled by the suite files during static initialization.
#include "bench.h"

namespace ember_bench {

namespace {
std::vector<Workload>& registry() {
  static std::vector<Workload> r;  // function-local: safe across translation units
  return r;
}
}  // namespace

bool add_workloads(std::vector<Workload> workloads) {
  for (auto& w : workloads) registry().push_back(std::move(w));
  return true;
}

const std::vector<Workload>& workloads() { return registry(); }

}  // namespace ember_bench
