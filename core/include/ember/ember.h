#pragma once
// Umbrella header of Ember's core library.
#include "ember/core/allocator.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
