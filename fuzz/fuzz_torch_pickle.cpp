// libFuzzer target for the restricted unpickler: the input is used as the
// data.pkl of a torch.save zip archive (with a valid CRC) that also holds
// storages "0".."3" of 64 bytes each, so mutations reach the pickle machine
// and the tensor rebuilding instead of failing the CRC check. An input that is
// itself a zip archive (a seed .pt file) is first unwrapped to its data.pkl.
// Every load must stay within its memory limit (checkpoint_memory.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "checkpoint_memory.h"
#include "serialize/byte_source.h"
#include "serialize/zip_reader.h"

namespace {

void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>((v >> 8) & 0xFF);
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xFFFF);
  put16(s, v >> 16);
}

std::string make_zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out, cd;
  for (const auto& [name, data] : entries) {
    const uint32_t crc = ember::serialize::crc32(data.data(), data.size());
    const uint32_t offset = static_cast<uint32_t>(out.size());
    for (std::string* s : {&out, &cd}) {
      put32(*s, s == &out ? 0x04034b50 : 0x02014b50);
      if (s == &cd) put16(*s, 20);
      put16(*s, 20);
      put16(*s, 0);
      put16(*s, 0);
      put32(*s, 0);
      put32(*s, crc);
      put32(*s, static_cast<uint32_t>(data.size()));
      put32(*s, static_cast<uint32_t>(data.size()));
      put16(*s, static_cast<uint32_t>(name.size()));
      put16(*s, 0);
      if (s == &cd) {
        put16(*s, 0);
        put16(*s, 0);
        put16(*s, 0);
        put32(*s, 0);
        put32(*s, offset);
      }
      *s += name;
    }
    out += data;
  }
  const uint32_t cd_offset = static_cast<uint32_t>(out.size());
  out += cd;
  put32(out, 0x06054b50);
  put32(out, 0);
  put16(out, static_cast<uint32_t>(entries.size()));
  put16(out, static_cast<uint32_t>(entries.size()));
  put32(out, static_cast<uint32_t>(cd.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string pickle(reinterpret_cast<const char*>(data), size);
  try {
    if (size >= 4 && pickle.compare(0, 4, "PK\x03\x04") == 0) {
      ember::serialize::MemorySource src(data, size);
      ember::serialize::ZipReader zip(src, "seed");
      for (const auto& e : zip.entries())
        if (e.name.size() >= 9 && e.name.compare(e.name.size() - 9, 9, "/data.pkl") == 0)
          pickle = zip.read(e);
    }
  } catch (const ember::Error&) {
  }
  std::vector<std::pair<std::string, std::string>> entries{{"archive/data.pkl", pickle}};
  for (int k = 0; k < 4; ++k) entries.push_back({"archive/data/" + std::to_string(k), std::string(64, '\x01')});
  const std::string file = make_zip(entries);
  ember::serialize::IValue v;
  ember::fuzz::check_load_memory(file.size(), [&] {
    v = ember::serialize::load_torch_bytes(file.data(), file.size());
    return 0;
  });
  ember::fuzz::print_bounded(v);
  return 0;
}
