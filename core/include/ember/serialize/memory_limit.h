#pragma once
// The memory a checkpoint load may use: serialize::load_torch (and
// load_torch_bytes, load_torch_state_dict) and ember::load / load_safetensors.
// See docs/serialization.md, "Memory".
//
// A load may hold at most per_file_byte * (the input's size in bytes) + floor
// bytes at once: tensor storages, the pickle's or header's bytes, every value
// the unpickler or JSON parser builds (strings, ints and None inside
// containers, lists, tuples, dicts, memo entries, the stack) and the IValue
// tree it returns. A file that would need more raises ember::Error naming the
// file, the limit and what was being built, before the memory is taken. The
// defaults (16 x the file + 256 MiB) load any checkpoint torch.save writes for a
// model (its pickle is small beside its storages) and keep a hostile 16 MB
// pickle below 512 MiB. Process-wide; set_checkpoint_memory_limit(0, 0)
// restores the defaults.
#include <cstdint>

namespace ember::serialize {

struct CheckpointMemoryLimit {
  uint64_t per_file_byte = 16;                // bytes of memory per byte of input
  uint64_t floor_bytes = uint64_t{256} << 20;  // plus this many bytes
};
inline constexpr CheckpointMemoryLimit kDefaultCheckpointMemoryLimit{};

CheckpointMemoryLimit checkpoint_memory_limit();
void set_checkpoint_memory_limit(uint64_t per_file_byte, uint64_t floor_bytes);
// The bytes a load of an input of input_bytes may hold under the current
// limit (saturating at 2^64 - 1).
uint64_t checkpoint_memory_budget(uint64_t input_bytes);

}  // namespace ember::serialize
