#pragma once
// Note [Out of memory at the entry points]
// A loader or decoder that runs out of memory must not end the program with
// "terminate called after throwing an instance of 'std::bad_alloc'" nor hand
// its caller an error that does not say which file it was reading. Two kinds
// of failure reach an entry point: std::bad_alloc (or std::length_error) from
// a std::vector, std::string or a library's C++ code, and the CPU allocator's
// own ember::Error ("CPU allocator: not enough memory: you tried to allocate
// N bytes"), which it marks in a thread-local note. Public entry points (io's decode_*,
// read_image, audio load/info, VideoReader, read_video; the checkpoint
// loaders have their own accounting, Note [Checkpoint memory budget]) run
// their body through with_out_of_memory_context(), which turns both into an
// ember::Error "<context>: out of memory ... while <activity>"; any other
// error passes through unchanged.
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "ember/core/error.h"

namespace ember {

namespace detail {
// The CPU allocator records a failed request here before it throws; the next
// with_out_of_memory_context() up the stack takes it (0: none).
void note_allocation_failure(uint64_t nbytes) noexcept;
uint64_t take_allocation_failure() noexcept;
[[noreturn]] void throw_out_of_memory(std::string_view context, std::string_view activity, const char* cause,
                                      uint64_t nbytes);
}  // namespace detail

namespace detail {
// A message part given as text or as a callable returning it (built only on failure).
template <class T>
std::string oom_text(const T& t) {
  if constexpr (std::is_invocable_v<const T&>) return std::string(t());
  else return std::string(t);
}
}  // namespace detail

// Runs f(). Running out of memory inside it raises ember::Error naming
// `context` (the op and the file) and `activity` ("decoding 1234 bytes of
// PNG"), with the allocator's request size when it is known. Each is a string
// or a callable returning one, called only on failure.
template <class C, class A, class F>
decltype(auto) with_out_of_memory_context(const C& context, const A& activity, F&& f) {
  detail::take_allocation_failure();  // a failure noted before this call is not ours
  try {
    return f();
  } catch (const std::bad_alloc&) {
    detail::take_allocation_failure();
    detail::throw_out_of_memory(detail::oom_text(context), detail::oom_text(activity), "std::bad_alloc", 0);
  } catch (const std::length_error&) {
    detail::take_allocation_failure();
    detail::throw_out_of_memory(detail::oom_text(context), detail::oom_text(activity), "std::length_error", 0);
  } catch (const Error&) {
    const uint64_t nbytes = detail::take_allocation_failure();
    if (nbytes == 0) throw;
    detail::throw_out_of_memory(detail::oom_text(context), detail::oom_text(activity), nullptr, nbytes);
  }
}

}  // namespace ember
