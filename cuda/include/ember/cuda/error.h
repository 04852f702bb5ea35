#pragma once
// CUDAError: an ember::Error raised when a CUDA runtime or library call fails.
// Its message names the Ember op that made the call, the call and CUDA's own
// error name and string ("cuda copy: cudaMemcpyAsync failed: cudaErrorInvalidValue
// (invalid argument)"); code() is the cudaError_t value, as an int so that this
// header needs no CUDA header.
#include <string>

#include "ember/core/error.h"

namespace ember::cuda {

class CUDAError : public Error {
 public:
  CUDAError(const std::string& message, int code) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace ember::cuda
