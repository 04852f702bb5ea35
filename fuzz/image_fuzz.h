#pragma once
// Shared by the image decoder fuzz targets: decode, check the result's shape
// against the mode, and accept ember::Error as the only failure. Anything else
// (a crash, a sanitizer report, another exception, a leak, an Error that
// reports an "internal error") fails the run.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <ember/ember.h>
#include <ember/io/io.h>

namespace ember::fuzz {

// A lower decode limit than the default, so that libFuzzer's -malloc_limit_mb
// (set below the default limit) flags any allocation the limit fails to bound.
// Small, too, for speed: a few hundred bytes can declare an image of the full
// limit whose entropy data stops early, which libjpeg then decodes as flat gray
// (docs/io.md): at 64 MiB such inputs took seconds each under ASan.
inline constexpr uint64_t kFuzzDecodeLimit = uint64_t{8} << 20;

inline void set_fuzz_limits() {
  static const bool done = [] {
    io::set_image_decode_limit(kFuzzDecodeLimit);
    return true;
  }();
  (void)done;
}

// Extra coverage features (libFuzzer's extra counters): libjpeg and libpng are
// the system's, uninstrumented, so by itself the fuzzer only sees Ember's own
// branches and soon stops finding "new" inputs. Each distinct outcome (the
// codec's error message with its numbers removed, or the shape of a decoded
// image) counts as a feature, so inputs reaching new checks inside the codecs
// are kept and mutated further.
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t g_outcome_counters[1 << 14];

inline void count_outcome(uint64_t hash) {
  uint8_t& c = g_outcome_counters[hash % sizeof(g_outcome_counters)];
  if (c != 255) ++c;
}

inline uint64_t fnv1a(uint64_t h, uint64_t byte) { return (h ^ byte) * 1099511628211ull; }

inline void count_error(io::ImageReadMode mode, const char* message) {
  uint64_t h = fnv1a(14695981039346656037ull, uint64_t(mode));
  for (const char* p = message; *p != '\0'; ++p)
    if (*p < '0' || *p > '9') h = fnv1a(h, uint8_t(*p));
  count_outcome(h);
}

inline int log2_bucket(int64_t v) {
  int b = 0;
  while (v > 1 && b < 40) v >>= 1, ++b;
  return b;
}

inline Tensor bytes_tensor(const uint8_t* data, size_t size) {
  Tensor t = empty({static_cast<int64_t>(size)}, kUInt8);
  if (size > 0) std::memcpy(t.data_ptr(), data, size);
  return t;
}

inline int64_t mode_channels(io::ImageReadMode mode) {
  switch (mode) {
    case io::ImageReadMode::GRAY: return 1;
    case io::ImageReadMode::GRAY_ALPHA: return 2;
    case io::ImageReadMode::RGB: return 3;
    case io::ImageReadMode::RGB_ALPHA: return 4;
    default: return 0;  // the file's own: 1 to 4
  }
}

// Runs decode(mode); a decoded image must be a [C, H, W] uint8 tensor over a
// dense buffer (torchvision's interleaved view, or planar after an EXIF
// rotation) with the mode's channel count and within the decode limit.
template <class Decode>
void decode_checked(Decode&& decode, io::ImageReadMode mode) {
  Tensor image;
  try {
    image = decode(mode);
  } catch (const Error& e) {
    // Bad input is fine; a broken invariant of Ember's own is a finding.
    if (std::strstr(e.what(), "internal error") != nullptr) std::abort();
    count_error(mode, e.what());
    return;
  }
  const int64_t want = mode_channels(mode);
  const bool ok = image.dtype() == kUInt8 && image.dim() == 3 &&
                  (image.permute({1, 2, 0}).is_contiguous() || image.is_contiguous()) &&
                  image.size(1) > 0 && image.size(2) > 0 &&
                  (want == 0 ? image.size(0) >= 1 && image.size(0) <= 4 : image.size(0) == want) &&
                  uint64_t(image.numel()) <= kFuzzDecodeLimit;
  if (!ok) std::abort();
  count_outcome(fnv1a(fnv1a(fnv1a(fnv1a(7, uint64_t(mode)), uint64_t(image.size(0))),
                            uint64_t(log2_bucket(image.size(1)))),
                      uint64_t(log2_bucket(image.size(2)))));
  // Touch every byte: uninitialised output shows up under MSan, and reading
  // it keeps the decode from being optimised away.
  const auto* p = image.data_ptr<uint8_t>();
  unsigned sum = 0;
  for (int64_t i = 0; i < image.numel(); ++i) sum += p[i];
  volatile unsigned sink = sum;
  (void)sink;
}

}  // namespace ember::fuzz
