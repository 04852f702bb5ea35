#pragma once
// The bitmap font of the drawing utilities' labels (draw_bounding_boxes):
// 5 x 7 pixel glyphs on a 6 x 11 pixel cell, Ember's own (PIL's default
// bitmap font is not Ember's to ship).
namespace ember::vision::utils_detail {

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 7;
constexpr int kCellWidth = 6;    // advance per character
constexpr int kCellHeight = 11;  // line height (PIL's default font's, so labels sit as torchvision's do)
constexpr int kGlyphTop = 2;     // rows above the glyph in its cell

// Whether (row, column) of character c's glyph is ink; rows 0..6, columns 0..4.
bool glyph_pixel(char c, int row, int column);

}  // namespace ember::vision::utils_detail
