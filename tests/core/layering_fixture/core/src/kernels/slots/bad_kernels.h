#pragma once
// A slot header that includes nn/ (a higher layer) and a file that does not exist.
#include "ember/core/tensor.h"
#include "nn/functional/helper.h"
#include "ops/missing.h"
