#include "png_common.h"

#include <cstdio>

namespace ember::io::detail {

void png_error_jump(png_structp png, png_const_charp message) {
  auto* err = static_cast<PngErrorState*>(png_get_error_ptr(png));
  std::snprintf(err->message, sizeof(err->message), "%s", message ? message : "libpng error");
  std::longjmp(err->jump, 1);
}

void png_warning_silent(png_structp, png_const_charp) {}

}  // namespace ember::io::detail
