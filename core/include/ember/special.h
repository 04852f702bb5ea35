#pragma once
// ember::special: torch.special's functions (PyTorch 1.10 semantics,
// scipy.special numerics); see docs/special.md.
#include "ember/special/bessel.h"
#include "ember/special/gamma.h"
#include "ember/special/misc.h"
