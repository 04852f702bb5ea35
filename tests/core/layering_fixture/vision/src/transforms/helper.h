#pragma once
// An op file of a library: a private CPU header, a private core header, and
#include "kernels/cpu/loops.h"
#include "ops/op_utils.h"
// what it may include: core's backend header set and its own lower layers.
#include "kernels/slots/bad_kernels.h"
#include "kernels/slots/up_kernels.h"
