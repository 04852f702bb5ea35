// Non-temporal stores for large outputs (Note [Streaming stores] in loops.h).
#include <cstring>

#include "kernels/cpu/loops.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ember::detail {

void stream_copy(void* dst, const void* src, size_t bytes) {
#if defined(__AVX2__)
  auto* d = static_cast<__m256i*>(dst);
  const auto* s = static_cast<const __m256i*>(src);
  for (size_t i = 0; i < bytes / 32; ++i) _mm256_stream_si256(d + i, _mm256_load_si256(s + i));
#else
  std::memcpy(dst, src, bytes);
#endif
}

void stream_fence() {
#if defined(__AVX2__)
  _mm_sfence();
#endif
}

}  // namespace ember::detail
