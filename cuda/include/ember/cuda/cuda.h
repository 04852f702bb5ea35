#pragma once
// Ember::cuda, Ember's CUDA backend (docs/cuda.md). Linking it makes
// Device("cuda:N") usable when the machine has a GPU: it registers the CUDA
// device guard, the caching allocator, pinned host memory, the copy slot and
// CUDA kernels into core. These headers never include CUDA's.
#include "ember/cuda/blas.h"
#include "ember/cuda/error.h"
#include "ember/cuda/event.h"
#include "ember/cuda/fft.h"
#include "ember/cuda/memory.h"
#include "ember/cuda/runtime.h"
#include "ember/cuda/stream.h"
