/* Writes the JPEG seeds Pillow cannot make (fuzz/corpus/jpeg/): restart markers
 * and arithmetic coding, each as a 16x16 RGB image, through libjpeg directly.
 *   gcc fuzz/corpus/make_jpeg_seeds.c -ljpeg -o /tmp/make_jpeg_seeds && /tmp/make_jpeg_seeds fuzz/corpus/jpeg
 */
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

static void write_seed(const char* dir, const char* name, int restart, int arith, int progressive) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) { perror(path); return; }
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = 16, c.image_height = 16, c.input_components = 3, c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 90, TRUE);
  c.restart_interval = restart;
  c.arith_code = arith;
  if (progressive) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  unsigned char row[16 * 3];
  while (c.next_scanline < c.image_height) {
    const int y = (int)c.next_scanline;
    for (int x = 0; x < 16; ++x)
      row[3 * x] = (unsigned char)(x * 16), row[3 * x + 1] = (unsigned char)(y * 16),
      row[3 * x + 2] = x > y ? 255 : 0;
    JSAMPROW r = row;
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(f);
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  write_seed(dir, "restart_every_mcu.jpg", 1, FALSE, FALSE);
  write_seed(dir, "arithmetic.jpg", 0, TRUE, FALSE);
  write_seed(dir, "arithmetic_progressive_restart.jpg", 1, TRUE, TRUE);
  return 0;
}
