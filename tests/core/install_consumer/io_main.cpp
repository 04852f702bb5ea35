// Built against the installed Ember, linking only Ember::io (which brings
// Ember::core): a PNG encode/decode round trip.
#include <ember/io/io.h>
#include <ember/ops/factories.h>

#include <iostream>

int main() {
  ember::Tensor image = ember::arange(2 * 3 * 4, ember::kInt64).to(ember::kUInt8).view({2, 3, 4});
  ember::Tensor png = ember::io::encode_png(image);
  ember::Tensor back = ember::io::decode_png(png);
  std::cout << "png bytes: " << png.numel() << "\n";
  return back.equal(image) ? 0 : 1;
}
