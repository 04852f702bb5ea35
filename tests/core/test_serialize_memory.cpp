// The checkpoint memory limit (ember/serialize/memory_limit.h, Note
// [Checkpoint memory budget]): values a pickle reuses through its memo stay
// shared, and floods of small values (None, empty lists, memo entries) or of
// JSON values raise the limit error instead of taking memory without bound.
// Inputs are generated and scaled down from issue 18's cases (16 MB of
// pickle there) with a proportionally lower limit, so each runs in a few
// milliseconds.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "serialize/memory_budget.h"
#include "serialize_test_util.h"
#include "tensor_expect.h"

namespace ember {
namespace serialize_memory_test {

using namespace std::string_literals;
using serialize::IValue;
using testing::expect_error;
using testing::PickleWriter;
using testing::torch_zip;

// Sets the process-wide limit for one test and restores the default after.
class LimitGuard {
 public:
  LimitGuard(uint64_t per_file_byte, uint64_t floor_bytes) {
    serialize::set_checkpoint_memory_limit(per_file_byte, floor_bytes);
  }
  ~LimitGuard() { serialize::set_checkpoint_memory_limit(0, 0); }
};

IValue load(const std::string& file) { return serialize::load_torch_bytes(file.data(), file.size()); }

constexpr const char* kLimitError = "loading needs more than its memory limit of";

TEST(SerializeMemory, LimitSetterAndDefaults) {
  const serialize::CheckpointMemoryLimit d = serialize::checkpoint_memory_limit();
  EXPECT_EQ(d.per_file_byte, 16u);
  EXPECT_EQ(d.floor_bytes, uint64_t{256} << 20);
  EXPECT_EQ(serialize::checkpoint_memory_budget(1000), 16000u + (uint64_t{256} << 20));
  {
    LimitGuard guard(3, 100);
    EXPECT_EQ(serialize::checkpoint_memory_limit().per_file_byte, 3u);
    EXPECT_EQ(serialize::checkpoint_memory_budget(10), 130u);
    serialize::set_checkpoint_memory_limit(0, 7);  // a floor alone
    EXPECT_EQ(serialize::checkpoint_memory_budget(1u << 30), 7u);
    serialize::set_checkpoint_memory_limit(~uint64_t{0}, 1);  // saturates
    EXPECT_EQ(serialize::checkpoint_memory_budget(2), ~uint64_t{0});
  }
  EXPECT_EQ(serialize::checkpoint_memory_limit().per_file_byte, 16u);  // (0, 0): the defaults
}

// A 1 MB string stored in the memo once and referenced 1,000 times: one
// string in memory (1 GB when each reference was a copy), well within 4x the
// file + 4 MiB.
TEST(SerializeMemory, MemoReferencedStringsAreShared) {
  LimitGuard guard(4, 4 << 20);
  PickleWriter w;
  w.str(std::string(1 << 20, 'a')).raw("q\x00"s).op('0');  // memo[0] = the string; pop
  w.op(']').mark();
  for (int i = 0; i < 1000; ++i) w.raw("h\x00"s);
  const IValue v = load(torch_zip(w.op('e').stop().bytes()));
  const auto& items = v.to_list();
  ASSERT_EQ(items.size(), 1000u);
  EXPECT_EQ(items[0].to_string().size(), size_t{1} << 20);
  for (const IValue& s : items) EXPECT_EQ(&s.to_string(), &items[0].to_string());
  // Copies of the IValue share it too.
  const IValue copy = items[17];
  EXPECT_EQ(&copy.to_string(), &items[0].to_string());
}

// The same string as the key of 1,000 dicts: dict indexes refer to the key,
// they do not copy it (in the unpickler nor in the IDicts), and its hash is
// computed once. A second, equal string in the file is interned: the two are
// one key (Python: {a: i, b: -i} with a == b has one item, -i), found
// without comparing a megabyte per dict.
TEST(SerializeMemory, MemoReferencedDictKeysAreShared) {
  LimitGuard guard(4, 4 << 20);
  PickleWriter w;
  w.str(std::string(1 << 20, 'k')).raw("q\x00"s).op('0');
  w.str(std::string(1 << 20, 'k')).raw("q\x01"s).op('0');
  w.op(']').mark();
  for (int i = 0; i < 1000; ++i) w.op('}').mark().raw("h\x00"s).integer(i).raw("h\x01"s).integer(-i).op('u');
  const IValue v = load(torch_zip(w.op('e').stop().bytes()));
  const auto& dicts = v.to_list();
  ASSERT_EQ(dicts.size(), 1000u);
  const std::string& key = dicts[0].to_dict().item(0).first.to_string();
  EXPECT_EQ(key.size(), size_t{1} << 20);
  for (size_t i = 0; i < dicts.size(); ++i) {
    ASSERT_EQ(dicts[i].to_dict().size(), 1u);
    EXPECT_EQ(&dicts[i].to_dict().item(0).first.to_string(), &key);
    EXPECT_EQ(dicts[i].to_dict().item(0).second.to_int(), -static_cast<int64_t>(i));
  }
  EXPECT_EQ(dicts[999].at(key).to_int(), -999);
}

// 16 M Nones in 16 MB of pickle took 1.36 GB; scaled to 1 M Nones: over 16x
// the file it is the limit error (while the stack grows), with room it loads.
TEST(SerializeMemory, NoneFloodIsBounded) {
  const size_t n = size_t{1} << 20;
  PickleWriter w;
  w.mark().raw(std::string(n, 'N')).op('l').stop();
  const std::string file = torch_zip(w.bytes());
  {
    LimitGuard guard(16, 0);
    expect_error([&] { load(file); }, kLimitError);
    expect_error([&] { load(file); }, "set_checkpoint_memory_limit");
  }
  {
    LimitGuard guard(128, 0);
    const IValue v = load(file);
    ASSERT_EQ(v.to_list().size(), n);
    EXPECT_TRUE(v.to_list()[n - 1].is_none());
  }
}

// 2 MB of empty lists took 665 MB; scaled to 128 Ki lists, each costing an
// arena node and an IValue list.
TEST(SerializeMemory, EmptyListFloodIsBounded) {
  const size_t n = size_t{1} << 17;
  PickleWriter w;
  w.op(']').mark().raw(std::string(n, ']')).op('e').stop();
  const std::string file = torch_zip(w.bytes());
  {
    LimitGuard guard(16, 0);
    expect_error([&] { load(file); }, kLimitError);
  }
  {
    LimitGuard guard(512, 0);
    const IValue v = load(file);
    ASSERT_EQ(v.to_list().size(), n);
    EXPECT_TRUE(v.to_list()[5].to_list().empty());
  }
}

// 16 M MEMOIZE opcodes took 1 GB and 9 s (a hash map entry each); the memo
// is now a vector: 16 bytes an entry, charged as it grows.
TEST(SerializeMemory, MemoizeFloodIsBounded) {
  const size_t n = size_t{1} << 20;
  PickleWriter w;
  w.op('N').raw(std::string(n, '\x94')).stop();
  const std::string file = torch_zip(w.bytes());
  {
    LimitGuard guard(16, 0);
    expect_error([&] { load(file); }, "the pickle memo");
  }
  {
    LimitGuard guard(64, 0);
    EXPECT_TRUE(load(file).is_none());
  }
}

// Memo semantics kept: MEMOIZE stores at len(memo) (Python's rule, also with
// holes left by BINPUT), far LONG_BINPUT indices work, unknown ones fail.
TEST(SerializeMemory, MemoIndices) {
  PickleWriter w;
  w.op(']').integer(7).raw("q\x05"s).op('0');   // memo[5] = 7
  w.integer(8).op('\x94').op('0');               // MEMOIZE: memo[1] = 8 (one entry so far)
  w.integer(9).raw("r\xff\xff\xff\x7f"s).op('0');  // memo[0x7fffffff] = 9
  w.mark().raw("h\x05h\x01j\xff\xff\xff\x7f"s).op('e').stop();
  const IValue v = load(torch_zip(w.bytes()));
  ASSERT_EQ(v.to_list().size(), 3u);
  EXPECT_EQ(v.to_list()[0].to_int(), 7);
  EXPECT_EQ(v.to_list()[1].to_int(), 8);
  EXPECT_EQ(v.to_list()[2].to_int(), 9);
  expect_error([&] { load(torch_zip(PickleWriter().op('N').raw("q\x03h\x02"s).stop().bytes())); },
               "memo index 2 was never stored");
  expect_error([&] { load(torch_zip(PickleWriter().op('N').raw("j\x00\x00\x00\x01"s).stop().bytes())); },
               "memo index 16777216 was never stored");
}

// Tensor storages are charged too: a 1 MiB storage under a 512 KiB limit.
TEST(SerializeMemory, StoragesAreCharged) {
  const int32_t numel = 1 << 18;
  const std::string file = torch_zip(
      PickleWriter().tensor("FloatStorage", "0", numel, 0, {numel}, {1}).stop().bytes(),
      {{"0", std::string(size_t(numel) * 4, '\0')}});
  {
    LimitGuard guard(0, 512 << 10);
    expect_error([&] { load(file); }, "building a tensor storage needs 1048768 more bytes");
  }
  {
    LimitGuard guard(1, 64 << 10);  // the file (its storage) plus 64 KiB
    EXPECT_EQ(load(file).to_tensor().numel(), numel);
  }
}

// The error names the file and the limit; ember::load's JSON header is bounded
// the same way (a 2-byte array element is a ~100-byte JSON value).
TEST(SerializeMemory, ErrorNamesFileAndLimit) {
  testing::TempDir dir;
  const std::string path = dir.path("flood.pt");
  testing::write_bytes(path, torch_zip(PickleWriter().mark().raw(std::string(1 << 16, 'N')).op('l').stop().bytes()));
  LimitGuard guard(1, 1000);
  try {
    serialize::load_torch(path);
    ADD_FAILURE() << "expected the limit error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("load_torch: " + path + ": loading needs more than its memory limit of "), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("(1 x the input's "), std::string::npos) << msg;
    EXPECT_NE(msg.find("ember::serialize::set_checkpoint_memory_limit"), std::string::npos) << msg;
  }
}

TEST(SerializeMemory, SafetensorsHeaderIsBounded) {
  std::string header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[0";
  for (int i = 0; i < (1 << 18); ++i) header += ",0";
  header += "],\"data_offsets\":[0,0]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[size_t(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  file += header;
  {
    LimitGuard guard(16, 0);
    expect_error([&] { serialize::load_safetensors_bytes(file.data(), file.size()); },
                 "building the header's JSON values");
  }
  // With the default limit the parse completes and the shape check speaks.
  expect_error([&] { serialize::load_safetensors_bytes(file.data(), file.size()); }, "at most 64");
  // A normal file loads under a tight limit: 2x itself + 64 KiB.
  StateDict sd;
  sd.insert("w", randn({64, 64}));
  const std::string good = serialize::save_safetensors_bytes(sd);
  LimitGuard guard(2, 64 << 10);
  EXPECT_TRUE(equal(serialize::load_safetensors_bytes(good.data(), good.size()).tensors.at("w"), sd.at("w")));
}

// An optimizer state's JSON (in a safetensors file's metadata) is bounded
// the same way.
TEST(SerializeMemory, OptimizerStateJsonIsBounded) {
  std::string text = "{\"state\":[0";
  for (int i = 0; i < (1 << 18); ++i) text += ",0";
  text += "]}";
  Metadata metadata;
  metadata.insert("optimizer", text);
  LimitGuard guard(16, 0);
  expect_error([&] { optim::read_optimizer_state(StateDict{}, metadata, "optimizer"); },
               "optim::read_optimizer_state: 'optimizer': loading needs more than its memory limit");
}

// Real checkpoints load under a limit close to their size: a state_dict with
// its storages and every nested container of the fixtures.
TEST(SerializeMemory, FixturesLoadWellWithinTheDefault) {
  LimitGuard guard(2, 256 << 10);
  for (const char* name : {"state_dict_zip.pt", "state_dict_legacy.pt", "nested_zip.pt", "nested_legacy.pt",
                           "nested_p4.pt"})
    EXPECT_NO_THROW(serialize::load_torch(testing::fixture_path("core/serialize/") + name)) << name;
}

// A state_dict of n one-element float tensors 'layer<i>.bias' = i, pickled as
// torch.save pickles (globals and repeated strings through the memo) in a zip
// without torch.save's 64-byte alignment padding: ~224 bytes a tensor.
std::string many_scalar_tensors(int n) {
  PickleWriter w;
  uint32_t memo = 0;
  auto put = [&] {
    w.op('r');
    for (int k = 0; k < 4; ++k) w.op(static_cast<char>((memo >> (8 * k)) & 0xFF));
    return memo++;
  };
  auto get = [&](uint32_t index) {
    w.op('j');
    for (int k = 0; k < 4; ++k) w.op(static_cast<char>((index >> (8 * k)) & 0xFF));
  };
  std::vector<std::pair<std::string, std::string>> storages;
  w.op('}');
  put();
  w.mark();
  uint32_t rebuild = 0, storage = 0, type = 0, cpu = 0, ordered_dict = 0;
  for (int i = 0; i < n; ++i) {
    const std::string key = std::to_string(i);
    w.str("layer" + key + ".bias");
    put();
    if (i == 0) w.global("torch._utils", "_rebuild_tensor_v2"), rebuild = put();
    else get(rebuild);
    w.mark().mark();
    if (i == 0) w.str("storage"), storage = put(), w.global("torch", "FloatStorage"), type = put();
    else get(storage), get(type);
    w.str(key);
    put();
    if (i == 0) w.str("cpu"), cpu = put();
    else get(cpu);
    w.op('K').op('\x01').tuple();
    put();
    w.op('Q').op('K').op('\x00').op('K').op('\x01').op('\x85');
    put();
    w.op('K').op('\x01').op('\x85');
    put();
    w.op('\x89');
    if (i == 0) w.global("collections", "OrderedDict"), ordered_dict = put();
    else get(ordered_dict);
    w.op(')').reduce();
    put();
    w.tuple();
    put();
    w.reduce();
    put();
    const float value = static_cast<float>(i);
    storages.push_back({key, std::string(reinterpret_cast<const char*>(&value), sizeof value)});
  }
  w.op('u').stop();
  return torch_zip(w.bytes(), storages);
}

// A storage is charged what the CPU allocator takes for it: blocks under
// 64 KiB are rounded to 64 bytes, the larger ones (which it caches) to 4 KiB
// pages, plus the StorageImpl.
TEST(SerializeMemory, StorageChargeFollowsTheAllocator) {
  EXPECT_EQ(serialize::tensor_data_bytes(0), 192u);
  EXPECT_EQ(serialize::tensor_data_bytes(4), 64u + 192);
  EXPECT_EQ(serialize::tensor_data_bytes(65), 128u + 192);
  EXPECT_EQ(serialize::tensor_data_bytes((64 << 10) - 1), (64u << 10) + 192);
  EXPECT_EQ(serialize::tensor_data_bytes(64 << 10), (64u << 10) + 192);
  EXPECT_EQ(serialize::tensor_data_bytes((64 << 10) + 1), (68u << 10) + 192);
}

// Many tiny tensors: the unpickler's values for each (~3.6 KB charged: the
// objects, tuples, memo entries, the tensor description and the tensor) cost
// far more than its storage, so this file loads at 17 x its size. Charging each
// 4-byte storage a 4 KiB page (as before) needed 35 x: a state_dict of nothing
// but scalars failed the default limit once the floor no longer covered it.
TEST(SerializeMemory, ManySmallTensorsLoad) {
  const int n = 2000;
  const std::string file = many_scalar_tensors(n);
  LimitGuard guard(20, 64 << 10);
  const IValue loaded = load(file);
  ASSERT_TRUE(loaded.is_dict());
  EXPECT_EQ(loaded.to_dict().size(), size_t(n));
  for (int i : {0, 1, 977, n - 1})
    EXPECT_EQ(loaded.at("layer" + std::to_string(i) + ".bias").to_tensor().item<float>(), float(i));
}

}  // namespace serialize_memory_test
}  // namespace ember
