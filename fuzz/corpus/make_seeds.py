#!/usr/bin/env python3
"""Writes the tiny image seeds in fuzz/corpus/{jpeg,png}/ (deterministic).

Each seed is a 16x16 image that exercises one decoder feature, so the fuzzers
start from every code path while keeping inputs small (fast runs). Needs Pillow:
  /usr/bin/python3 fuzz/corpus/make_seeds.py
"""
import io
import os

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def pattern(mode, size=16):
    """A gradient with an edge: nonzero AC coefficients and filter choices."""
    img = Image.new("RGB", (size, size))
    img.putdata([((x * 16) % 256, (y * 16) % 256, 255 if x > y else 0)
                 for y in range(size) for x in range(size)])
    return img.convert(mode)


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def save(folder, name, img, **kwargs):
    out = io.BytesIO()
    img.save(out, **kwargs)
    with open(os.path.join(HERE, folder, name), "wb") as f:
        f.write(out.getvalue())


def jpegs():
    rgb = pattern("RGB")
    save("jpeg", "baseline_420.jpg", rgb, format="JPEG", quality=90)
    save("jpeg", "baseline_444.jpg", rgb, format="JPEG", quality=90, subsampling=0)
    save("jpeg", "baseline_422.jpg", rgb, format="JPEG", quality=90, subsampling=1)
    save("jpeg", "gray.jpg", pattern("L"), format="JPEG", quality=90)
    save("jpeg", "progressive.jpg", rgb, format="JPEG", quality=90, progressive=True)
    save("jpeg", "optimized_huffman.jpg", rgb, format="JPEG", quality=50, optimize=True)
    save("jpeg", "cmyk.jpg", pattern("CMYK"), format="JPEG", quality=90)
    save("jpeg", "exif_orientation_8.jpg", rgb, format="JPEG", quality=90,
         exif=exif_with_orientation(8))
    # Odd size: partial MCUs on both edges.
    save("jpeg", "odd_13x7.jpg", pattern("RGB").crop((0, 0, 13, 7)), format="JPEG", quality=90)


def pngs():
    rgba = pattern("RGBA")
    from PIL import PngImagePlugin
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "tEXt chunk")
    info.add_text("Title", "zTXt chunk " * 8, zip=True)
    info.add_itxt("Description", "iTXt chunk", lang="en", tkey="Description")
    save("png", "rgba_text_chunks.png", rgba, format="PNG", pnginfo=info)
    save("png", "palette_trns.png", pattern("RGB").quantize(8), format="PNG", transparency=0)
    save("png", "palette_1bit.png", pattern("1").convert("P"), format="PNG", bits=1)
    save("png", "gray_trns.png", pattern("L"), format="PNG", transparency=128)
    save("png", "gray16.png", pattern("L").convert("I").point(lambda v: v * 257), format="PNG")


if __name__ == "__main__":
    jpegs()
    pngs()
