// serialize::load_torch: checkpoints written by torch.save (zip and legacy
// formats, pickle protocols 2 and 4), and hostile or broken files.
#include <gtest/gtest.h>

#include <cstring>

#include <ember/ember.h>

#include "serialize_test_util.h"
#include "tensor_expect.h"

namespace ember {
namespace serialize_torch_test {

using namespace std::string_literals;
using serialize::IValue;
using testing::expect_error;
using testing::fixture_path;
using testing::PickleWriter;
using testing::torch_zip;

std::string data_dir() { return fixture_path("core/serialize/"); }
Tensor npy(const std::string& name) { return testing::load_npy(data_dir() + name + ".npy"); }

const std::vector<std::string> kStateDictKeys = {
    "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
    "1.num_batches_tracked", "2.weight", "2.bias"};

void check_state_dict(const StateDict& sd) {
  EXPECT_EQ(sd.keys(), kStateDictKeys);
  for (const auto& [key, t] : sd) {
    const Tensor expected = npy("sd_" + key);
    EXPECT_EQ(t.dtype(), expected.dtype()) << key;
    EXPECT_EQ(t.sizes(), expected.sizes()) << key;
    EXPECT_TRUE(equal(t, expected)) << key;
    EXPECT_FALSE(t.requires_grad());
  }
  EXPECT_EQ(sd.at("1.num_batches_tracked").dim(), 0);
  EXPECT_EQ(sd.at("1.num_batches_tracked").dtype(), kInt64);
}

TEST(SerializeTorch, StateDictZip) { check_state_dict(serialize::load_torch_state_dict(data_dir() + "state_dict_zip.pt")); }

TEST(SerializeTorch, StateDictLegacy) {
  check_state_dict(serialize::load_torch_state_dict(data_dir() + "state_dict_legacy.pt"));
}

void check_nested(const IValue& v) {
  ASSERT_TRUE(v.is_dict());
  EXPECT_EQ(v.at("epoch").to_int(), 7);
  EXPECT_EQ(v.at("lr").to_double(), 0.01);
  EXPECT_EQ(v.at("name").to_string(), "run-\xc3\xa9");
  const auto& flags = v.at("flags").to_list();
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_TRUE(flags[0].to_bool());
  EXPECT_FALSE(flags[1].to_bool());
  EXPECT_TRUE(flags[2].is_none());
  ASSERT_TRUE(v.at("shape").is_tuple());
  EXPECT_EQ(v.at("shape").to_tuple()[1].to_int(), 3);
  EXPECT_EQ(v.at("ids").at(1).to_string(), "a");
  EXPECT_EQ(v.at("ids").at(-2).to_string(), "b");
  EXPECT_EQ(v.at("big").to_int(), int64_t(1) << 40);
  EXPECT_EQ(v.at("neg").to_int(), -5);
  // A Parameter keeps requires_grad.
  const Tensor& p = v.at("param").to_tensor();
  EXPECT_TRUE(p.requires_grad());
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(equal(p.detach(), tensor({1.5f, -2.0f})));
  // Views saved together share one storage again.
  const auto& views = v.at("views").to_list();
  ASSERT_EQ(views.size(), 4u);
  const Tensor base = views[0].to_tensor();
  const Tensor expected = arange(12, kFloat32).view({3, 4});
  EXPECT_TRUE(equal(base, expected));
  EXPECT_TRUE(equal(views[1].to_tensor(), expected.slice(0, 1)));
  EXPECT_TRUE(equal(views[2].to_tensor(), expected.t()));
  EXPECT_TRUE(equal(views[3].to_tensor(), expected.select(1, 1)));
  EXPECT_EQ(views[1].to_tensor().storage_offset(), 4);
  EXPECT_EQ(views[2].to_tensor().strides(), (std::vector<int64_t>{1, 4}));
  for (const auto& x : views) EXPECT_EQ(x.to_tensor().storage().get(), base.storage().get());
  // The ordered dicts keep their order; nested state_dict and every dtype.
  const auto& od = v.at("od").to_dict();
  EXPECT_EQ(od.item(0).first.to_string(), "z");
  EXPECT_EQ(od.item(1).first.to_string(), "a");
  check_state_dict(serialize::to_state_dict(v.at("model")));
  for (const auto& [k, t] : v.at("dtypes").to_dict()) {
    const std::string name = k.to_string();
    const Tensor want = npy("dt_" + name);
    const Tensor got = t.to_tensor();
    if (name == "bf16") {
      EXPECT_EQ(got.dtype(), kBFloat16);
      EXPECT_TRUE(equal(got.to(kFloat32), want));
    } else {
      EXPECT_EQ(got.dtype(), want.dtype()) << name;
      EXPECT_TRUE(equal(got, want)) << name;
    }
  }
  EXPECT_EQ(v.at("dtypes").to_dict().size(), 12u);
  EXPECT_EQ(v.at("empty").to_tensor().sizes(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(v.at("scalar").to_tensor().dim(), 0);
  EXPECT_EQ(v.at("scalar").to_tensor().item<float>(), 3.25f);
}

TEST(SerializeTorch, NestedZip) { check_nested(serialize::load_torch(data_dir() + "nested_zip.pt")); }
TEST(SerializeTorch, NestedLegacy) { check_nested(serialize::load_torch(data_dir() + "nested_legacy.pt")); }
TEST(SerializeTorch, NestedProtocol4) { check_nested(serialize::load_torch(data_dir() + "nested_p4.pt")); }

TEST(SerializeTorch, LoadedViewsShareMemory) {
  IValue v = serialize::load_torch(data_dir() + "nested_zip.pt");
  Tensor base = v.at("views").to_list()[0].to_tensor();
  Tensor col = v.at("views").to_list()[3].to_tensor();
  base.fill_(0.0);
  EXPECT_EQ(col.sum().item<float>(), 0.0f);
}

TEST(SerializeTorch, ToStateDictErrors) {
  IValue v = serialize::load_torch(data_dir() + "nested_zip.pt");
  expect_error([&] { serialize::to_state_dict(v); }, "value of 'model' is a dict, not a Tensor");
  expect_error([&] { serialize::to_state_dict(v.at("flags")); }, "got a list");
  expect_error([&] { v.at("nope"); }, "no key 'nope'");
  expect_error([&] { v.at("epoch").to_string(); }, "expected str but got int");
}

TEST(SerializeTorch, IValuePrinting) {
  IValue v = serialize::load_torch(data_dir() + "nested_zip.pt");
  std::ostringstream ss;
  ss << v.at("flags") << " " << v.at("shape") << " " << v.at("param");
  EXPECT_EQ(ss.str(), "[True, False, None] (2, 3) tensor(float32[2])");
}

// ---- hostile files ----
TEST(SerializeTorch, RefusesOsSystem) {
  expect_error([] { serialize::load_torch(data_dir() + "evil_zip.pt"); }, "global 'posix.system' is not allowed");
  expect_error([] { serialize::load_torch(data_dir() + "evil_legacy.pt"); }, "global 'posix.system' is not allowed");
  expect_error([] { serialize::load_torch(data_dir() + "evil.pkl"); }, "global 'posix.system' is not allowed");
}

void expect_zip_error(const std::string& pickle, const std::string& needle,
                      const std::vector<std::pair<std::string, std::string>>& storages = {}) {
  const std::string file = torch_zip(pickle, storages);
  expect_error([&] { serialize::load_torch_bytes(file.data(), file.size()); }, needle);
}

TEST(SerializeTorch, RefusesGlobalsOutsideTheWhitelist) {
  expect_zip_error(PickleWriter().global("torch.storage", "_load_from_bytes").stop().bytes(),
                   "global 'torch.storage._load_from_bytes' is not allowed");
  expect_zip_error(PickleWriter().str("builtins").str("eval").op('\x93').stop().bytes(),
                   "global 'builtins.eval' is not allowed");
  expect_zip_error(PickleWriter().global("__main__", "Net").stop().bytes(), "global '__main__.Net'");
  // Whitelisted names used the wrong way.
  expect_zip_error(PickleWriter().global("torch", "FloatStorage").op(')').reduce().stop().bytes(),
                   "cannot be called");
  expect_zip_error(PickleWriter().global("collections", "OrderedDict").stop().bytes(), "a bare global");
  expect_zip_error(PickleWriter().integer(1).op(')').reduce().stop().bytes(), "not callable");
  expect_zip_error(PickleWriter().op(']').op(']').op('b').stop().bytes(), "BUILD on a list");
}

TEST(SerializeTorch, RefusesOpcodesOutsideTheSet) {
  expect_zip_error(PickleWriter().raw("I1\n").stop().bytes(), "opcode 0x49 ('I') is not allowed");
  expect_zip_error(PickleWriter().mark().raw("iposix\nsystem\n").stop().bytes(), "('i') is not allowed");
  expect_zip_error(PickleWriter().op('\x81').stop().bytes(), "opcode 0x81 is not allowed");
  expect_zip_error(PickleWriter().op('\x82').raw("\x01").stop().bytes(), "opcode 0x82 is not allowed");
  expect_zip_error(PickleWriter().op('\x8f').stop().bytes(), "opcode 0x8f is not allowed");  // EMPTY_SET
  expect_zip_error(PickleWriter().op('P').raw("x\n").stop().bytes(), "('P') is not allowed");
}

TEST(SerializeTorch, MalformedPickles) {
  expect_zip_error(PickleWriter().reduce().stop().bytes(), "stack underflow");
  expect_zip_error(PickleWriter().mark().op('a').stop().bytes(), "stack underflow");
  expect_zip_error(PickleWriter().op('t').stop().bytes(), "no MARK");
  expect_zip_error(PickleWriter().raw("h\x05").stop().bytes(), "memo index 5 was never stored");
  expect_zip_error(PickleWriter().raw("X\xf0\xff\xff\xff").stop().bytes(), "runs past the end of the pickle");
  expect_zip_error(PickleWriter().raw("\x8d\xff\xff\xff\xff\xff\xff\xff\x7f").stop().bytes(), "runs past the end");
  expect_zip_error(PickleWriter().raw("\x8b\xff\xff\xff\x7f").stop().bytes(), "is too large");
  expect_zip_error(PickleWriter().op('N').op('N').stop().bytes(), "STOP with 2 values");
  expect_zip_error(PickleWriter().op('N').bytes(), "unexpected end of the pickle");
  expect_zip_error(PickleWriter().raw("\x80\x09").stop().bytes(), "unsupported pickle protocol 9");
  expect_zip_error(PickleWriter().op('}').mark().op(']').integer(1).op('u').stop().bytes(), "dict keys must be str or int");
  expect_zip_error(PickleWriter().raw("\x8a\x09" + std::string(9, '\x01')).stop().bytes(), "does not fit in 64 bits");
  // A list containing itself.
  expect_zip_error(PickleWriter().raw("]q\x00h\x00"s).op('a').stop().bytes(), "recursive structure");
  // 2000 nested lists.
  {
    PickleWriter w;
    for (int i = 0; i < 2000; ++i) w.op(']');
    for (int i = 0; i < 1999; ++i) w.op('a');
    expect_zip_error(w.stop().bytes(), "nested more than 1000");
  }
  // Shared objects are not copied: a 2^60-leaf DAG loads in linear time.
  {
    PickleWriter w;
    w.op(']');
    for (int i = 0; i < 60; ++i) w.raw("q\x00"s).op('0').op(']').raw("h\x00h\x00"s).op('\x86').op('a');
    const std::string f = torch_zip(w.stop().bytes());
    EXPECT_NO_THROW(serialize::load_torch_bytes(f.data(), f.size()));
  }
}

TEST(SerializeTorch, TensorBoundsAreChecked) {
  const std::string six_floats(24, '\0');
  auto tensor_pickle = [](int32_t numel, int32_t offset, std::vector<int32_t> sizes,
                          std::vector<int32_t> strides) {
    return PickleWriter().tensor("FloatStorage", "0", numel, offset, sizes, strides).stop().bytes();
  };
  {
    const std::string f = torch_zip(tensor_pickle(6, 0, {2, 3}, {3, 1}), {{"0", six_floats}});
    Tensor t = serialize::load_torch_bytes(f.data(), f.size()).to_tensor();
    EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  }
  expect_zip_error(tensor_pickle(6, 1, {2, 3}, {3, 1}), "runs past the end of its storage",
                   {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {3, 3}, {3, 1}), "runs past the end of its storage",
                   {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {2, 3}, {-1, 1}), "negative tensor stride", {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {-2, 3}, {3, 1}), "negative tensor size", {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, -1, {2}, {1}), "negative storage offset", {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {2, 3}, {3}), "stride has 1", {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {0x40000000, 0x40000000, 0x40000000}, {1, 1, 1}), "overflows",
                   {{"0", six_floats}});
  expect_zip_error(tensor_pickle(0x7fffffff, 0, {2}, {1}), "larger than the file", {{"0", six_floats}});
  expect_zip_error(tensor_pickle(6, 0, {2}, {1}), "has no entry archive/data/0");
  expect_zip_error(tensor_pickle(5, 0, {2}, {1}), "needs 20 bytes but its entry holds 24", {{"0", six_floats}});
  // An empty tensor may sit at the end of its storage.
  {
    const std::string f = torch_zip(tensor_pickle(6, 6, {0, 3}, {3, 1}), {{"0", six_floats}});
    EXPECT_EQ(serialize::load_torch_bytes(f.data(), f.size()).to_tensor().numel(), 0);
  }
}

TEST(SerializeTorch, BrokenZipArchives) {
  const std::string good = testing::read_bytes(data_dir() + "state_dict_zip.pt");
  auto load = [](const std::string& f) { serialize::load_torch_bytes(f.data(), f.size()); };
  ASSERT_NO_THROW(load(good));
  // Truncations lose the end-of-central-directory record.
  for (size_t cut : {size_t(3), size_t(4), size_t(100), good.size() / 2, good.size() - 1})
    expect_error([&] { load(good.substr(0, cut)); }, "load_torch");
  expect_error([&] { load(good.substr(0, good.size() - 1)); }, "no zip end-of-central-directory record");
  // A compressed entry.
  const std::string deflated = testing::make_zip({{"archive/data.pkl", "x", 8}});
  expect_error([&] { load(deflated); }, "is compressed (method 8)");
  // A flipped byte in a storage: CRC mismatch.
  std::string flipped = good;
  const size_t pos = good.find("state_dict_zip/data/0");
  ASSERT_NE(pos, std::string::npos);
  {
    // data of the first storage starts after its local header (name + padding extra field).
    const auto* h = reinterpret_cast<const unsigned char*>(good.data() + pos - 30);
    const size_t data = pos + (h[26] | (h[27] << 8)) + (h[28] | (h[29] << 8));
    flipped[data] ^= 0x40;
  }
  expect_error([&] { load(flipped); }, "CRC-32 mismatch");
  // No data.pkl.
  expect_error([&] { load(testing::make_zip({{"a/b", "x"}})); }, "no <archive>/data.pkl");
  // Central directory offset pointing past the file.
  std::string bad_cd = good;
  bad_cd[bad_cd.size() - 6] = '\x7f';
  expect_error([&] { load(bad_cd); }, "central directory");
  expect_error([&] { load("hello world"); }, "not a torch.save file");
  expect_error([&] { load(""); }, "not a torch.save file");
}

TEST(SerializeTorch, BrokenLegacyFiles) {
  const std::string good = testing::read_bytes(data_dir() + "state_dict_legacy.pt");
  auto load = [](const std::string& f) { serialize::load_torch_bytes(f.data(), f.size()); };
  ASSERT_NO_THROW(load(good));
  expect_error([&] { load(good.substr(0, good.size() - 1)); }, "truncated file");
  expect_error([&] { load(good.substr(0, 30)); }, "unexpected end of the pickle");
  std::string magic = good;
  magic[5] ^= 1;
  expect_error([&] { load(magic); }, "bad magic number");
}

}  // namespace serialize_torch_test
}  // namespace ember
