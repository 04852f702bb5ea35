// libFuzzer target: ember::serialize::load_safetensors_bytes on arbitrary bytes.
// Every input must load or raise ember::Error (anything else aborts the run),
// within its memory limit (checkpoint_memory.h).
#include <cstddef>
#include <cstdint>

#include <ember/ember.h>

#include "checkpoint_memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::check_load_memory(size, [&] {
    auto contents = ember::serialize::load_safetensors_bytes(data, size);
    for (const auto& [name, t] : contents.tensors) (void)t.numel();
    return contents;
  });
  return 0;
}
