#pragma once
// libpng glue shared by the PNG decoder and encoder. As with libjpeg (see
// jpeg_common.h), libpng's errors longjmp back to run_png_guarded(), never
// across a C++ frame that owns objects, and the caller throws ember::Error.
#include <csetjmp>
#include <cstddef>

#include <png.h>

namespace ember::io::detail {

struct PngErrorState {
  std::jmp_buf jump;
  char message[256];
};

// libpng's error callback: records the message and jumps to the active guard.
[[noreturn]] void png_error_jump(png_structp png, png_const_charp message);
// Warnings (ancillary chunk problems and the like) are dropped: the data decodes.
void png_warning_silent(png_structp png, png_const_charp message);

template <class Body>
[[gnu::noinline]] bool run_png_guarded(PngErrorState& err, Body&& body) {
  if (setjmp(err.jump) != 0) return false;
  body();
  return true;
}

}  // namespace ember::io::detail
