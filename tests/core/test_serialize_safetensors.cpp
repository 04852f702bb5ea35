// ember::save / ember::load in the safetensors format: round trips for every
// dtype and shape, the list/single-tensor forms, metadata, the byte layout,
// files written by Python, and malformed headers.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <ember/ember.h>

#include "serialize_test_util.h"
#include "tensor_expect.h"

namespace ember {
namespace serialize_safetensors_test {

using testing::expect_error;
using testing::fixture_path;
using testing::random_tensor;
using testing::read_bytes;
using testing::TempDir;

const DType kAllDTypes[] = {kBool,     kUInt8,   kInt8,    kInt16,     kInt32,    kInt64,
                            kFloat16,  kBFloat16, kFloat32, kFloat64, kComplex64, kComplex128};

TEST(SerializeSafetensors, RoundTripEveryDTypeAndShape) {
  TempDir dir;
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {5}, {2, 3}, {2, 0, 3}, {1, 2, 3, 1}};
  StateDict d;
  int i = 0;
  for (DType dt : kAllDTypes)
    for (const auto& shape : shapes) {
      std::string name = "t";
      name += std::to_string(i);
      d.insert(name, random_tensor(shape, dt, i));
      ++i;
    }
  const std::string path = dir.path("all.safetensors");
  save(path, d);
  StateDict back = ember::load(path);
  ASSERT_EQ(back.size(), d.size());
  for (size_t k = 0; k < d.size(); ++k) {
    const auto& [name, t] = d.item(k);
    EXPECT_EQ(back.item(k).first, name);  // header order is insertion order
    const Tensor& b = back.item(k).second;
    EXPECT_EQ(b.dtype(), t.dtype()) << name;
    EXPECT_EQ(b.sizes(), t.sizes()) << name;
    EXPECT_TRUE(b.is_contiguous());
    EXPECT_TRUE(equal(b, t)) << name << " " << t.dtype();
  }
}

TEST(SerializeSafetensors, NonContiguousSavedContiguous) {
  TempDir dir;
  Tensor base = arange(24, kFloat32).view({4, 6});
  Tensor t = base.t().slice(0, 1, 5, 2);  // strided, offset view
  ASSERT_FALSE(t.is_contiguous());
  save(dir.path("v.safetensors"), t);
  Tensor back = load_tensor(dir.path("v.safetensors"));
  EXPECT_TRUE(back.is_contiguous());
  EXPECT_TRUE(equal(back, t));
  // Only the view's elements are written.
  auto bytes = read_bytes(dir.path("v.safetensors"));
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(bytes.size(), 8 + n + t.nbytes());
  EXPECT_EQ(n % 8, 0u);
}

TEST(SerializeSafetensors, ListAndSingleTensorForms) {
  TempDir dir;
  std::vector<Tensor> list;
  for (int i = 0; i < 12; ++i) list.push_back(full({i % 3 + 1}, i, kInt64));
  save(dir.path("list.safetensors"), list);
  std::vector<Tensor> back = load_tensor_list(dir.path("list.safetensors"));
  ASSERT_EQ(back.size(), list.size());
  for (size_t i = 0; i < list.size(); ++i) EXPECT_TRUE(equal(back[i], list[i]));
  StateDict named = ember::load(dir.path("list.safetensors"));
  EXPECT_EQ(named.item(10).first, "10");
  expect_error([&] { load_tensor(dir.path("list.safetensors")); }, "holds 12 tensors");

  save(dir.path("one.safetensors"), scalar_tensor(3.5, kFloat64));
  Tensor one = load_tensor(dir.path("one.safetensors"));
  EXPECT_EQ(one.dim(), 0);
  EXPECT_EQ(one.item<double>(), 3.5);
  EXPECT_EQ(ember::load(dir.path("one.safetensors")).item(0).first, "tensor");

  StateDict bad;
  bad.insert("0", ones({1}));
  bad.insert("2", ones({1}));
  save(dir.path("bad.safetensors"), bad);
  expect_error([&] { load_tensor_list(dir.path("bad.safetensors")); }, "is not an index");
}

TEST(SerializeSafetensors, MetadataAndEmptyFile) {
  TempDir dir;
  Metadata meta{{"format", "pt"}, {"note", "quote \" backslash \\ newline \n unicode \xc3\xa9"}};
  save(dir.path("m.safetensors"), StateDict{}, meta);
  Metadata back;
  StateDict d = ember::load(dir.path("m.safetensors"), &back);
  EXPECT_TRUE(d.empty());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.at("format"), "pt");
  EXPECT_EQ(back.at("note"), meta.at("note"));
  // The reference implementation's bytes for an empty file: "{}" padded to 8.
  const std::string empty = serialize::save_safetensors_bytes({});
  EXPECT_EQ(empty, std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
}

TEST(SerializeSafetensors, ByteLayoutMatchesReference) {
  // safetensors' own test: {"attn.0": F32 [1,2,3] = 0..5}.
  StateDict d;
  d.insert("attn.0", arange(6, kFloat32).view({1, 2, 3}));
  const std::string bytes = serialize::save_safetensors_bytes(d);
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(bytes.size(), 8 + 64 + 24u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 64);
  EXPECT_EQ(bytes.substr(8, header.size()), header);
  auto back = serialize::load_safetensors_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(equal(back.tensors.at("attn.0"), d.at("attn.0")));
}

TEST(SerializeSafetensors, DataAlignedByElementSize) {
  StateDict d;
  d.insert("a", ones({3}, kUInt8));
  d.insert("b", ones({3}, kFloat64));
  d.insert("c", ones({1}, kInt16));
  const std::string bytes = serialize::save_safetensors_bytes(d);
  auto back = serialize::load_safetensors_bytes(bytes.data(), bytes.size());
  EXPECT_EQ(back.tensors.keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_NE(bytes.find(R"("b":{"dtype":"F64","shape":[3],"data_offsets":[0,24]})"), std::string::npos);
  EXPECT_NE(bytes.find(R"("c":{"dtype":"I16","shape":[1],"data_offsets":[24,26]})"), std::string::npos);
}

TEST(SerializeSafetensors, StateDictBehavesLikeOrderedDict) {
  StateDict d;
  d.insert("w", ones({1}));
  d.insert("b", zeros({1}));
  d["w"] = full({1}, 2.0);  // overwrite keeps the position
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"w", "b"}));
  EXPECT_EQ(d.at("w").item<float>(), 2.0f);
  EXPECT_TRUE(d.contains("b"));
  EXPECT_EQ(d.find("x"), nullptr);
  EXPECT_TRUE(d.erase("w"));
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(d.find("b") != nullptr);
  expect_error([&] { d.at("w"); }, "no key 'w'");
}

TEST(SerializeSafetensors, SaveErrors) {
  TempDir dir;
  StateDict d;
  d.insert("__metadata__", ones({1}));
  expect_error([&] { save(dir.path("x"), d); }, "reserved");
  StateDict u;
  u.insert("u", Tensor());
  expect_error([&] { save(dir.path("x"), u); }, "undefined");
  expect_error([&] { save(dir.path("no/such/dir/x"), ones({1})); }, "cannot open");
  expect_error([&] { ember::load(dir.path("missing")); }, "cannot open");
}

TEST(SerializeSafetensors, LoadsFileWrittenByPython) {
  const std::string dir = fixture_path("core/serialize/");
  Metadata meta;
  StateDict d = load(dir + "py.safetensors", &meta);
  EXPECT_EQ(meta.at("format"), "pt");
  ASSERT_EQ(d.size(), 12u);
  for (const auto& [name, t] : d) {
    Tensor expected = testing::load_npy(dir + "py_" + name + ".npy");
    if (name == "bf16") {  // .npy has no bfloat16: the fixture holds its float32 values
      EXPECT_EQ(t.dtype(), kBFloat16);
      EXPECT_TRUE(equal(t.to(kFloat32), expected));
      continue;
    }
    EXPECT_EQ(t.dtype(), expected.dtype()) << name;
    EXPECT_TRUE(equal(t, expected)) << name;
  }
  EXPECT_EQ(d.at("steps").dim(), 0);
  EXPECT_EQ(d.at("empty").sizes(), (std::vector<int64_t>{0, 3}));
}

// Builds a file from a header string and a data size.
std::string make_file(const std::string& header, size_t data_bytes, uint64_t declared = UINT64_MAX) {
  std::string out(8, '\0');
  uint64_t n = declared == UINT64_MAX ? header.size() : declared;
  std::memcpy(out.data(), &n, 8);
  out += header;
  out.append(data_bytes, '\0');
  return out;
}

void expect_load_error(const std::string& bytes, const std::string& needle) {
  expect_error([&] { serialize::load_safetensors_bytes(bytes.data(), bytes.size()); }, needle);
}

TEST(SerializeSafetensors, MalformedFilesRaiseErrors) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  ASSERT_NO_THROW(serialize::load_safetensors_bytes(make_file(ok, 8).data(), make_file(ok, 8).size()));
  expect_load_error("abc", "too small");
  expect_load_error(make_file(ok, 8, uint64_t(1) << 40), "exceeds the 100 MB limit");
  expect_load_error(make_file(ok, 8, 10'000'000), "exceeds the file size");
  expect_load_error(make_file(ok, 8, UINT64_MAX - 3), "exceeds the 100 MB limit");
  expect_load_error(make_file("[1]", 0), "does not start with '{'");
  expect_load_error(make_file(R"({"a":})", 0), "invalid JSON");
  expect_load_error(make_file(R"({"a":{},})", 0), "invalid JSON");
  expect_load_error(make_file(R"({"a":1,"a":2})", 0), "duplicate key");
  expect_load_error(make_file("{\"\xff\":1}", 0), "invalid UTF-8");
  expect_load_error(make_file(std::string(100, '{'), 0), "invalid JSON");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} x)", 8),
                    "unexpected data after");
  expect_load_error(make_file(R"({"a":{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}})", 8),
                    "unknown dtype 'Q4'");
  expect_load_error(make_file(R"({"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}})", 4),
                    "U16 is not supported");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
                    "span 8 bytes but the shape and dtype F32 need 12");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8),
                    "non-negative integer");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8),
                    "non-negative integer");
  expect_load_error(
      make_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", 8),
      "shape is too large");
  expect_load_error(
      make_file(R"({"a":{"dtype":"F32","shape":[0,4294967296,4294967296],"data_offsets":[0,0]}})", 0),
      "shape is too large");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,99999999999]}})", 8),
                    "past the end of the data");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8),
                    "reversed");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12),
                    "leave a gap");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                              12),
                    "overlap");
  expect_load_error(make_file(ok, 9), "1 bytes after the last tensor");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2]}})", 8), "missing data_offsets");
  expect_load_error(make_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", 8),
                    "unexpected field 'x'");
  expect_load_error(make_file(R"({"__metadata__":{"k":1}})", 0), "is not a string");
  std::string bools = make_file(R"({"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 0);
  bools += std::string("\x01\x02", 2);
  expect_load_error(bools, "must be 0 or 1");
  // A truncated real file.
  StateDict d;
  d.insert("w", ones({4, 4}));
  std::string good = serialize::save_safetensors_bytes(d);
  for (size_t cut : {size_t(0), size_t(7), size_t(8), size_t(20), good.size() - 1})
    EXPECT_THROW(serialize::load_safetensors_bytes(good.data(), cut), Error) << cut;
}

TEST(SerializeSafetensors, JsonEscapesInHeader) {
  // \u escapes, surrogate pairs and "/" escapes decode to UTF-8 names.
  const std::string h =
      R"({"caf\u00e9 \ud83d\ude00 a\/b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  std::string f = make_file(h, 1);
  auto c = serialize::load_safetensors_bytes(f.data(), f.size());
  EXPECT_EQ(c.tensors.item(0).first, "caf\xc3\xa9 \xf0\x9f\x98\x80 a/b");
  expect_load_error(make_file(R"({"\ud83d":1})", 0), "surrogate");
  expect_load_error(make_file("{\"a\tb\":1}", 0), "control character");
}

}  // namespace serialize_safetensors_test
}  // namespace ember
