// A file in a folder that is in no layer.
#include "ember/core/tensor.h"
