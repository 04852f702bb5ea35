// Raw libjpeg / libpng calls of the io suite (see io_raw.h).
#include "io_raw.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <png.h>

namespace ember_bench::raw {

namespace {

// libjpeg and libpng report fatal errors by longjmp (unwinding a C++
// exception through their C frames is undefined). Each guarded body holds only
// library calls and plain pointers, and sits in a frame of its own, so the jump
// skips no destructor; the caller throws afterwards from ordinary C++ code.
struct JpegError {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

[[noreturn]] void jpeg_error_exit(j_common_ptr cinfo) {
  std::longjmp(reinterpret_cast<JpegError*>(cinfo->err)->jump, 1);
}

template <class Body>
[[gnu::noinline]] bool jpeg_guarded(JpegError& err, Body&& body) {
  if (setjmp(err.jump) != 0) return false;
  body();
  return true;
}

template <class Body>
[[gnu::noinline]] bool png_guarded(png_structp png, Body&& body) {
  if (setjmp(png_jmpbuf(png)) != 0) return false;
  body();
  return true;
}

[[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string("raw ") + what + " failed"); }

// A malloc'd, growing output buffer handed to a tensor without a copy.
struct GrowingBuffer {
  uint8_t* data = nullptr;
  size_t size = 0, capacity = 0;
  bool append(const uint8_t* p, size_t n) {
    if (size + n > capacity) {
      const size_t grown = std::max(size + n, capacity ? 2 * capacity : size_t(1) << 20);
      auto* bigger = static_cast<uint8_t*>(std::realloc(data, grown));
      if (!bigger) return false;
      data = bigger;
      capacity = grown;
    }
    std::memcpy(data + size, p, n);
    size += n;
    return true;
  }
};

at::Tensor bytes_tensor(uint8_t* data, size_t size) {
  return at::from_blob(data, {static_cast<int64_t>(size)}, [](void* p) { std::free(p); }, at::kByte);
}

void png_write_to_buffer(png_structp png, png_bytep data, png_size_t length) {
  auto* buffer = static_cast<GrowingBuffer*>(png_get_io_ptr(png));
  if (!buffer->append(data, length)) png_error(png, "out of memory");
}

struct PngReader {
  const uint8_t* data;
  size_t size, offset;
};

void png_read_from_memory(png_structp png, png_bytep out, png_size_t length) {
  auto* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (length > r->size - r->offset) png_error(png, "truncated PNG");
  std::memcpy(out, r->data + r->offset, length);
  r->offset += length;
}

std::vector<uint8_t*> row_pointers(const at::Tensor& hwc) {
  std::vector<uint8_t*> rows(static_cast<size_t>(hwc.size(0)));
  uint8_t* base = static_cast<uint8_t*>(hwc.data_ptr());
  for (size_t y = 0; y < rows.size(); ++y) rows[y] = base + y * static_cast<size_t>(hwc.stride(0));
  return rows;
}

}  // namespace

at::Tensor decode_jpeg(const uint8_t* data, size_t size) {
  jpeg_decompress_struct cinfo{};
  JpegError err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_error_exit;
  jpeg_create_decompress(&cinfo);
  bool ok = jpeg_guarded(err, [&] {
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
  });
  at::Tensor image;
  std::vector<uint8_t*> rows;
  if (ok) {
    image = at::empty({cinfo.output_height, cinfo.output_width, 3}, at::kByte);
    rows = row_pointers(image);
    ok = jpeg_guarded(err, [&] {
      while (cinfo.output_scanline < cinfo.output_height)
        jpeg_read_scanlines(&cinfo, rows.data() + cinfo.output_scanline, cinfo.output_height - cinfo.output_scanline);
      jpeg_finish_decompress(&cinfo);
    });
  }
  jpeg_destroy_decompress(&cinfo);
  if (!ok) fail("jpeg decode");
  return image;
}

at::Tensor encode_jpeg(const at::Tensor& hwc, int quality) {
  const std::vector<uint8_t*> rows = row_pointers(hwc);
  jpeg_compress_struct cinfo{};
  JpegError err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_error_exit;
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  const bool ok = jpeg_guarded(err, [&] {
    jpeg_mem_dest(&cinfo, &out, &out_size);
    cinfo.image_width = static_cast<JDIMENSION>(hwc.size(1));
    cinfo.image_height = static_cast<JDIMENSION>(hwc.size(0));
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height)
      jpeg_write_scanlines(&cinfo, const_cast<uint8_t**>(rows.data()) + cinfo.next_scanline,
                           cinfo.image_height - cinfo.next_scanline);
    jpeg_finish_compress(&cinfo);
  });
  jpeg_destroy_compress(&cinfo);
  if (!ok) {
    std::free(out);
    fail("jpeg encode");
  }
  return bytes_tensor(out, out_size);
}

at::Tensor decode_png(const uint8_t* data, size_t size) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    fail("png decode (setup)");
  }
  PngReader reader{data, size, 0};
  png_uint_32 width = 0, height = 0;
  int depth = 0, color = 0;
  bool ok = png_guarded(png, [&] {
    png_set_read_fn(png, &reader, png_read_from_memory);
    png_read_info(png, info);
    png_get_IHDR(png, info, &width, &height, &depth, &color, nullptr, nullptr, nullptr);
  });
  if (ok && (depth != 8 || color != PNG_COLOR_TYPE_RGB)) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("raw png decode: only 8-bit RGB files");
  }
  at::Tensor image;
  std::vector<uint8_t*> rows;
  if (ok) {
    image = at::empty({height, width, 3}, at::kByte);
    rows = row_pointers(image);
    ok = png_guarded(png, [&] {
      png_read_image(png, rows.data());
      png_read_end(png, nullptr);
    });
  }
  png_destroy_read_struct(&png, &info, nullptr);
  if (!ok) fail("png decode");
  return image;
}

at::Tensor encode_png(const at::Tensor& hwc, int level) {
  const std::vector<uint8_t*> rows = row_pointers(hwc);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    fail("png encode (setup)");
  }
  GrowingBuffer out;
  const bool ok = png_guarded(png, [&] {
    png_set_write_fn(png, &out, png_write_to_buffer, nullptr);
    png_set_IHDR(png, info, static_cast<png_uint_32>(hwc.size(1)), static_cast<png_uint_32>(hwc.size(0)), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_write_info(png, info);
    png_write_image(png, const_cast<uint8_t**>(rows.data()));
    png_write_end(png, info);
  });
  png_destroy_write_struct(&png, &info);
  if (!ok) {
    std::free(out.data);
    fail("png encode");
  }
  return bytes_tensor(out.data, out.size);
}

}  // namespace ember_bench::raw
