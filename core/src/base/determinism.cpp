// The process-wide deterministic-algorithms flag (see determinism.h).
#include "ember/core/determinism.h"

#include <atomic>

#include "ember/core/error.h"

namespace ember {

namespace {
std::atomic<bool> deterministic{false};
}

void set_deterministic(bool enabled) { deterministic.store(enabled, std::memory_order_relaxed); }
void use_deterministic_algorithms(bool enabled) { set_deterministic(enabled); }
bool are_deterministic_algorithms_enabled() { return deterministic.load(std::memory_order_relaxed); }

namespace detail {
void alert_not_deterministic(const char* op) {
  EMBER_CHECK(!are_deterministic_algorithms_enabled(), op,
              " does not have a deterministic implementation, but deterministic algorithms were "
              "requested with ember::set_deterministic(true) / use_deterministic_algorithms(true)");
}
}  // namespace detail

}  // namespace ember
