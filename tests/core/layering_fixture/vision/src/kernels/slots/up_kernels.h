#pragma once
// A library slot header that includes a higher layer of its library.
#include "transforms/helper.h"
