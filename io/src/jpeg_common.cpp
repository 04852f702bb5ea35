#include "jpeg_common.h"

#include <cstring>

namespace ember::io::detail {
namespace {

void error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void silent_output_message(j_common_ptr) {}

}  // namespace

void install_jpeg_error_manager(j_common_ptr cinfo, JpegErrorManager& err) {
  cinfo->err = jpeg_std_error(&err.pub);
  err.pub.error_exit = error_exit;
  err.pub.output_message = silent_output_message;
  err.message[0] = '\0';
}

void jpeg_fail(j_common_ptr cinfo, const char* message) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  std::snprintf(err->message, sizeof(err->message), "%s", message);
  std::longjmp(err->jump, 1);
}

}  // namespace ember::io::detail
