#pragma once
// Colour keywords for the drawing utilities (PIL's ImageColor names).
#include <cstdint>
#include <string_view>

namespace ember::vision::utils_detail {

struct NamedColor {
  std::string_view name;
  uint8_t r, g, b;
};

// The colour of a lower-case CSS keyword ("red", "darkslategray"), or nullptr.
const NamedColor* find_named_color(std::string_view lower_name);

}  // namespace ember::vision::utils_detail
