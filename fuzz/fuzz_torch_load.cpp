// libFuzzer target: ember::serialize::load_torch_bytes on arbitrary bytes
// (zip archives, legacy files, anything else). Every input must load or raise
// ember::Error, within its memory limit (checkpoint_memory.h). Zip entries are
// CRC-checked, so most mutations of a zip stop there: fuzz_torch_pickle
// reaches the unpickler directly.
#include <cstddef>
#include <cstdint>

#include <ember/ember.h>

#include "checkpoint_memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::serialize::IValue v;
  ember::fuzz::check_load_memory(size, [&] {
    v = ember::serialize::load_torch_bytes(data, size);
    return 0;
  });
  ember::fuzz::print_bounded(v);
  return 0;
}
