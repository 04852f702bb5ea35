// libFuzzer target: ember::serialize::load_torch_bytes on arbitrary bytes
// (zip archives, legacy files, anything else). Every input must load or raise
// ember::Error. Zip entries are CRC-checked, so most mutations of a zip stop
// there: fuzz_torch_pickle reaches the unpickler directly.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include <ember/ember.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::serialize::IValue v = ember::serialize::load_torch_bytes(data, size);
    std::ostringstream ss;
    ss << v;
  } catch (const ember::Error&) {
  }
  return 0;
}
