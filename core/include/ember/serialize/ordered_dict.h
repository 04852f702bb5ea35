#pragma once
// StateDict and Metadata live with OrderedDict in the core.
#include "ember/core/ordered_dict.h"
