// Shared option checks of the Adam family (Note [Adam-family optimizers]).
#include "adam_family.h"

namespace ember::optim::detail {

void check_adam_family_options(const std::string& who, double eps, std::pair<double, double> betas,
                               double weight_decay) {
  const auto check = [&](bool ok, const char* what, double value) {
    EMBER_CHECK(ok, who, ": invalid ", what, ": ", value);
  };
  check(eps >= 0, "epsilon value", eps);
  check(betas.first >= 0 && betas.first < 1, "beta parameter at index 0", betas.first);
  check(betas.second >= 0 && betas.second < 1, "beta parameter at index 1", betas.second);
  check(weight_decay >= 0, "weight_decay value", weight_decay);
}

}  // namespace ember::optim::detail
