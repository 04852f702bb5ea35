// libFuzzer target: ember::serialize::load_safetensors_bytes on arbitrary bytes.
// Every input must load or raise ember::Error (anything else aborts the run).
#include <cstddef>
#include <cstdint>

#include <ember/ember.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto contents = ember::serialize::load_safetensors_bytes(data, size);
    for (const auto& [name, t] : contents.tensors) (void)t.numel();
  } catch (const ember::Error&) {
  }
  return 0;
}
