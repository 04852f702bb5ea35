// Checked size arithmetic (Note [Checked sizes] in ember/core/checked_size.h).
#include "ember/core/checked_size.h"

#include "ember/core/error.h"

namespace ember {

namespace {
[[noreturn]] void fail_storage_overflow(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                                        std::string_view op) {
  EMBER_FAIL(op, ": storage size calculation overflowed with sizes=", sizes, " and strides=", strides,
             offset != 0 ? detail::concat(" and storage offset ", offset) : std::string(), " (element size ",
             itemsize, " bytes; at most 2^63 - 1 bytes can be addressed)");
}
}  // namespace

int64_t checked_mul(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  EMBER_CHECK(!mul_overflows(a, b, &r), op, ": integer overflow: ", a, " * ", b, " does not fit in int64");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  EMBER_CHECK(!add_overflows(a, b, &r), op, ": integer overflow: ", a, " + ", b, " does not fit in int64");
  return r;
}

std::optional<int64_t> try_numel(IntArrayRef sizes) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s == 0) return 0;  // whatever the other sizes: no element
    overflow |= mul_overflows(n, s, &n);
  }
  if (overflow) return std::nullopt;
  return n;
}

int64_t checked_numel(IntArrayRef sizes, std::string_view op) {
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, op, ": negative dimension ", s, " in sizes ", sizes);
  const std::optional<int64_t> n = try_numel(sizes);
  EMBER_CHECK(n.has_value(), op, ": the number of elements of sizes=", sizes,
              " overflows int64 (integer multiplication overflow)");
  return *n;
}

int64_t checked_nbytes(IntArrayRef sizes, size_t itemsize, std::string_view op) {
  const int64_t n = checked_numel(sizes, op);
  int64_t bytes;
  EMBER_CHECK(!mul_overflows(n, static_cast<int64_t>(itemsize), &bytes), op,
              ": storage size calculation overflowed with sizes=", sizes, " (", n, " elements of ", itemsize,
              " bytes; at most 2^63 - 1 bytes can be addressed)");
  return bytes;
}

int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                       std::string_view op) {
  EMBER_CHECK(sizes.size() == strides.size(), op, ": got ", sizes.size(), " sizes but ", strides.size(),
              " strides");
  EMBER_CHECK(offset >= 0, op, ": negative storage offset ", offset);
  const auto es = static_cast<int64_t>(itemsize);
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, op, ": negative dimension ", sizes[i], " in sizes ", sizes);
    EMBER_CHECK(strides[i] >= 0, op, ": negative stride ", strides[i], " in strides ", strides);
    if (sizes[i] == 0) empty = true;
  }
  if (empty) return 0;
  // Index of the last element, then bytes through it; each byte stride must
  // also fit (kernels multiply strides by the element size up front).
  int64_t last = offset, span, stride_bytes, bytes;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    overflow |= mul_overflows(sizes[i] - 1, strides[i], &span);
    overflow |= add_overflows(last, span, &last);
    overflow |= mul_overflows(strides[i], es, &stride_bytes);
  }
  overflow |= add_overflows(last, 1, &last);
  overflow |= mul_overflows(last, es, &bytes);
  if (overflow) fail_storage_overflow(sizes, strides, offset, itemsize, op);
  return bytes;
}

}  // namespace ember
