#pragma once
// torchtext's text datasets (read from their official on-disk layouts), a
// seeded shuffle buffer for iterable datasets, and the language-model batching
// helpers of the PyTorch tutorials (issue 21).
#include "ember/text/lm_batching.h"
#include "ember/text/shuffle_buffer.h"
#include "ember/text/text_datasets.h"
