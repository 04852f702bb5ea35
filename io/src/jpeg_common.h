#pragma once
// libjpeg glue shared by the JPEG decoder and encoder: an error manager that
// turns libjpeg's fatal errors into a longjmp, and the guard that catches it.
//
// Why longjmp and not a C++ exception: libjpeg is C; unwinding a C++ exception
// through its frames is undefined. So error_exit longjmps back to run_guarded(),
// whose callers keep every C++ object (tensors, vectors) in their own frame, which
// the jump never crosses, and then throw ember::Error from ordinary C++ code.
#include <csetjmp>
#include <cstddef>
#include <cstdio>

#include <jpeglib.h>

namespace ember::io::detail {

struct JpegErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

// Installs the error manager on cinfo->err: fatal errors record the message and
// jump; warnings (corrupt-but-decodable data) are silent, as the data still decodes.
void install_jpeg_error_manager(j_common_ptr cinfo, JpegErrorManager& err);

// Records `message` and jumps to the active guard (for Ember's own callbacks).
[[noreturn]] void jpeg_fail(j_common_ptr cinfo, const char* message);

// Runs body() (libjpeg calls only; no objects with destructors) and returns false
// if libjpeg reported a fatal error, with the message in err.message.
// Never inlined: the setjmp then sits in a frame of its own whose only local is
// `body`, so no caller variable can be left stale in a register by the jump.
template <class Body>
[[gnu::noinline]] bool run_guarded(JpegErrorManager& err, Body&& body) {
  if (setjmp(err.jump) != 0) return false;
  body();
  return true;
}

}  // namespace ember::io::detail
