// ember::save_torch: the files torch.save writes. Byte-identical to torch
// 1.13's own files for the same objects (fixtures from
// scripts/fixtures/torch_save.py), loads back exactly, keeps views sharing,
// and refuses what torch.save cannot express. torch.load reading Ember's
// files is checked by core.torch_save_check (scripts/check_torch_save.py,
// driven by TorchSaveCheck.WriteFilesForTorch below).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <ember/ember.h>

#include "npy.h"
#include "serialize/byte_source.h"
#include "serialize/zip_reader.h"
#include "serialize/zip_writer.h"
#include "serialize_test_util.h"
#include "test_device_backend.h"

namespace ember {
namespace {

using serialize::load_torch_bytes;
using serialize::save_torch_bytes;

std::string fixture(const std::string& name) {
  return testing::read_bytes(testing::fixture_path("core/torch_save/" + name));
}

// The recipes of scripts/fixtures/torch_save.py.
StateDict state_dict_recipe() {
  Tensor w = arange(12, kFloat32).reshape({3, 4}) * 0.5 - 2;
  StateDict sd;
  sd.insert("w", w);
  sd.insert("w_t", w.t());
  sd.insert("row", w.select(0, 1));
  sd.insert("cols", w.slice(1, 1, std::nullopt, 2));
  sd.insert("b", tensor<bool>({true, false, true}));
  sd.insert("h", arange(5, kFloat16) - 2);
  sd.insert("bf", arange(4, kBFloat16) / 4);
  sd.insert("d", arange(3, kFloat64) * 1.5);
  sd.insert("i8", arange(4, kInt8) - 2);
  sd.insert("u8", arange(4, kUInt8) + 250);
  sd.insert("i16", arange(3, kInt16) * 1000);
  sd.insert("i32", arange(3, kInt32) - 100000);
  sd.insert("i64", arange(3, kInt64) * (int64_t{1} << 40));
  sd.insert("c64", complex(arange(2, kFloat32), -arange(2, kFloat32) / 2));
  sd.insert("c128", complex(arange(3, kFloat64) / 4, arange(3, kFloat64)));
  sd.insert("scalar", scalar_tensor(3.5, kFloat32));
  sd.insert("empty", zeros({0, 3}));
  return sd;
}

StateDict long_state_dict_recipe() {
  const Tensor base = arange(10, kFloat32);
  StateDict sd;
  for (int64_t k = 0; k < 1001; ++k) sd.insert("p" + std::to_string(k), base.select(0, k % 10));
  return sd;
}

IValue nested_recipe() {
  Tensor t = arange(6, kFloat64).reshape({2, 3});
  IDict inner;
  inner.insert("t", t);
  inner.insert(3, "int key");
  std::vector<IValue> many, many_tensors;
  for (int64_t k = 0; k < 1001; ++k) many.emplace_back(k);
  for (int64_t k = 0; k < 50; ++k) many_tensors.emplace_back(full({1}, k, kInt64));
  IDict d;
  d.insert("epoch", 7);
  d.insert("big", int64_t{1} << 40);
  d.insert("neg", -3);
  d.insert("min64", std::numeric_limits<int64_t>::min());
  d.insert("max64", std::numeric_limits<int64_t>::max());
  d.insert("int32", int64_t{INT32_MIN});
  d.insert("lr", 0.125);
  d.insert("eps", 1e-8);
  d.insert("name", "resnet");
  d.insert("unicode", "na\xc3\xafve \xe2\x9c\x93");
  d.insert("flag", true);
  d.insert("off", false);
  d.insert("nothing", IValue());
  d.insert("sizes", IValue::list({1, 2, 3}));
  d.insert("pair", IValue::tuple({0.5, 0.25}));
  d.insert("long_tuple", IValue::tuple({1, 2, 3, 4}));
  d.insert("empty_list", IValue::list({}));
  d.insert("empty_tuple", IValue::tuple({}));
  d.insert("inner", IValue::dict(std::move(inner)));
  d.insert("many", IValue::list(std::move(many)));
  IDict dict1000;
  for (int64_t k = 0; k < 1000; ++k) dict1000.insert(std::to_string(k), k);
  d.insert("dict1000", IValue::dict(std::move(dict1000)));
  d.insert("many_tensors", IValue::list(std::move(many_tensors)));
  d.insert("tensors", IValue::list({t, t.slice(0, 1), t.t()}));
  return IValue::dict(std::move(d));
}

void expect_same_tensor(const Tensor& a, const Tensor& b, const std::string& what) {
  EXPECT_EQ(a.dtype(), b.dtype()) << what;
  EXPECT_EQ(a.sizes().vec(), b.sizes().vec()) << what;
  EXPECT_EQ(a.strides().vec(), b.strides().vec()) << what;
  EXPECT_EQ(a.storage_offset(), b.storage_offset()) << what;
  EXPECT_EQ(a.requires_grad(), b.requires_grad()) << what;
  EXPECT_TRUE(IValue(a) == IValue(b)) << what;
}

TEST(TorchSave, StateDictIsByteIdenticalToTorchSave) {
  const std::string ours = save_torch_bytes(state_dict_recipe(), "state_dict");
  const std::string theirs = fixture("state_dict.pt");
  ASSERT_EQ(ours.size(), theirs.size());
  EXPECT_TRUE(ours == theirs) << "first difference at byte "
                              << std::mismatch(ours.begin(), ours.end(), theirs.begin()).first - ours.begin();
}

TEST(TorchSave, LongStateDictIsByteIdenticalToTorchSave) {
  const std::string ours = save_torch_bytes(long_state_dict_recipe(), "long_state_dict");
  const std::string theirs = fixture("long_state_dict.pt");
  ASSERT_EQ(ours.size(), theirs.size());
  EXPECT_TRUE(ours == theirs) << "first difference at byte "
                              << std::mismatch(ours.begin(), ours.end(), theirs.begin()).first - ours.begin();
}

TEST(TorchSave, NestedValueIsByteIdenticalToTorchSave) {
  const std::string ours = save_torch_bytes(nested_recipe(), "nested");
  const std::string theirs = fixture("nested.pt");
  ASSERT_EQ(ours.size(), theirs.size());
  EXPECT_TRUE(ours == theirs) << "first difference at byte "
                              << std::mismatch(ours.begin(), ours.end(), theirs.begin()).first - ours.begin();
}

TEST(TorchSave, FileNamesTheArchiveAsTorchSaveDoes) {
  testing::TempDir dir;
  const std::string path = dir.path("state_dict.pt");
  save_torch(path, state_dict_recipe());
  EXPECT_EQ(testing::read_bytes(path), fixture("state_dict.pt"));
  EXPECT_EQ(serialize::archive_name_of("a/b.c/model.v2.pth"), "model.v2");
  EXPECT_EQ(serialize::archive_name_of("x"), "x");
  EXPECT_EQ(serialize::archive_name_of("dir/.pt"), "archive");
}

TEST(TorchSave, StateDictRoundTripsExactly) {
  const StateDict sd = state_dict_recipe();
  const StateDict back = serialize::to_state_dict(load_torch_bytes(save_torch_bytes(sd).data(), save_torch_bytes(sd).size()));
  ASSERT_EQ(back.keys(), sd.keys());
  for (const auto& [k, t] : sd) expect_same_tensor(back.at(k), t, k);
  // Views share one storage again, as they did when saved.
  EXPECT_EQ(back.at("w").storage().get(), back.at("w_t").storage().get());
  EXPECT_EQ(back.at("w").storage().get(), back.at("row").storage().get());
  EXPECT_EQ(back.at("w").storage().get(), back.at("cols").storage().get());
  EXPECT_NE(back.at("w").storage().get(), back.at("d").storage().get());
}

TEST(TorchSave, NestedValueRoundTripsExactly) {
  const IValue v = nested_recipe();
  const std::string bytes = save_torch_bytes(v);
  const IValue back = load_torch_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(back == v);
  EXPECT_TRUE(back.at("pair").is_tuple());
  EXPECT_TRUE(back.at("sizes").is_list());
  EXPECT_EQ(back.at("min64").to_int(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(back.at("max64").to_int(), std::numeric_limits<int64_t>::max());
  const auto& tensors = back.at("tensors").to_list();
  EXPECT_EQ(tensors[0].to_tensor().impl(), back.at("inner").at("t").to_tensor().impl());  // one object, memoized
  EXPECT_EQ(tensors[1].to_tensor().storage().get(), tensors[0].to_tensor().storage().get());
  EXPECT_EQ(tensors[1].to_tensor().storage_offset(), 3);
  EXPECT_EQ(tensors[2].to_tensor().strides().vec(), (std::vector<int64_t>{1, 3}));
}

TEST(TorchSave, RequiresGradAndLazyBits) {
  Tensor p = randn({2, 2});
  p.requires_grad_(true);
  Tensor z = complex(arange(3, kFloat32), arange(3, kFloat32) + 1);
  IDict d;
  d.insert("p", p);
  d.insert("conj", z.conj());  // a lazy conjugate view: written resolved
  d.insert("neg", z.conj().imag());  // imag of a conjugate: a negated view
  const std::string bytes = save_torch_bytes(IValue::dict(std::move(d)));
  const IValue back = load_torch_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(back.at("p").to_tensor().requires_grad());
  EXPECT_TRUE(back.at("conj").to_tensor().equal(z.conj().resolve_conj()));
  EXPECT_FALSE(back.at("conj").to_tensor().is_conj());
  EXPECT_TRUE(back.at("neg").to_tensor().equal(-(arange(3, kFloat32) + 1)));
}

TEST(TorchSave, TensorsOnAnotherDeviceAreWrittenFromTheirStorage) {
  // The test device (not host-accessible): each storage is copied to the host
  // once, views keep their places in it, and the file is the CPU one's.
  const StateDict cpu = state_dict_recipe();
  StateDict dev;
  const Tensor w = cpu.at("w").to(kTestDevice);
  dev.insert("w", w);
  dev.insert("w_t", w.t());
  dev.insert("row", w.select(0, 1));
  dev.insert("cols", w.slice(1, 1, std::nullopt, 2));
  StateDict cpu4;
  for (const char* k : {"w", "w_t", "row", "cols"}) cpu4.insert(k, cpu.at(k));
  EXPECT_EQ(save_torch_bytes(dev), save_torch_bytes(cpu4));
}

TEST(TorchSave, EmberSaveWritesPtPathsInTorchFormat) {
  testing::TempDir dir;
  const StateDict sd = state_dict_recipe();
  save(dir.path("m.pt"), sd);
  EXPECT_TRUE(serialize::is_torch_file(dir.path("m.pt")));
  EXPECT_EQ(testing::read_bytes(dir.path("m.pt")), save_torch_bytes(sd, "m"));
  const StateDict back = load(dir.path("m.pt"));
  ASSERT_EQ(back.keys(), sd.keys());
  for (const auto& [k, t] : sd) expect_same_tensor(back.at(k), t, k);
  // .PTH in any case; one tensor and lists as torch.save(tensor) / torch.save([...]).
  save(dir.path("t.PTH"), sd.at("w"));
  EXPECT_TRUE(load_tensor(dir.path("t.PTH")).equal(sd.at("w")));
  save(dir.path("l.pth"), std::vector<Tensor>{sd.at("b"), sd.at("d")});
  const std::vector<Tensor> l = load_tensor_list(dir.path("l.pth"));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(l[1].equal(sd.at("d")));
  // Other paths stay safetensors.
  save(dir.path("m.safetensors"), sd.at("w"));
  EXPECT_FALSE(serialize::is_torch_file(dir.path("m.safetensors")));
  EXPECT_TRUE(load_tensor(dir.path("m.safetensors")).equal(sd.at("w")));
  try {
    save(dir.path("meta.pt"), sd, Metadata{{"format", "pt"}});
    FAIL() << "metadata in a .pt file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no place for safetensors metadata"), std::string::npos) << e.what();
  }
}

TEST(TorchSave, OptimizerStateUsesTorchOptimLayout) {
  Tensor w = arange(6, kFloat32).reshape({2, 3}).requires_grad_(true);
  Tensor b = zeros({2}).requires_grad_(true);
  optim::Adam opt({w, b}, {.lr = 0.01, .betas = {0.8, 0.9}});
  (w.sum() * 2 + b.sum()).backward();
  opt.step();
  const IValue v = optim::optimizer_state_dict_to_torch(opt.state_dict());
  const IValue& group = v.at("param_groups").to_list().at(0);
  EXPECT_TRUE(group.at("betas").is_tuple());
  EXPECT_EQ(group.to_dict().item(group.to_dict().size() - 1).first.to_string(), "params");
  const std::string bytes = save_torch_bytes(v);
  const optim::OptimizerStateDict back = optim::optimizer_state_dict_from_torch(load_torch_bytes(bytes.data(), bytes.size()));
  const optim::OptimizerStateDict orig = opt.state_dict();
  ASSERT_EQ(back.state.size(), orig.state.size());
  for (const auto& [index, s] : orig.state)
    for (const auto& [key, value] : s) EXPECT_TRUE(back.state.at(index).at(key) == value) << index << " " << key;
  EXPECT_EQ(back.param_groups.at(0).params, orig.param_groups.at(0).params);
  // ember::save to a .pt path writes the same, and load_optimizer_state_dict reads it.
  testing::TempDir dir;
  save(dir.path("opt.pt"), orig);
  EXPECT_EQ(testing::read_bytes(dir.path("opt.pt")), save_torch_bytes(v, "opt"));
  const optim::OptimizerStateDict again = optim::load_optimizer_state_dict(dir.path("opt.pt"));
  for (const auto& [index, s] : orig.state)
    for (const auto& [key, value] : s) EXPECT_TRUE(again.state.at(index).at(key) == value) << index << " " << key;
  EXPECT_TRUE(again.param_groups.at(0).options.at("betas") == orig.param_groups.at(0).options.at("betas"));
}

TEST(TorchSave, ErrorsNameTheEntry) {
  IDict inner;
  inner.insert("t", Tensor());
  IDict d;
  d.insert("model", IValue::dict(std::move(inner)));
  try {
    save_torch_bytes(IValue::dict(std::move(d)));
    FAIL() << "an undefined tensor was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("entry ['model']['t']: an undefined tensor cannot be saved"), std::string::npos)
        << e.what();
  }
  // One storage as two dtypes: torch.save refuses it too.
  Tensor f = zeros({4}, kFloat32);
  Tensor as_int(make_intrusive<TensorImpl>(f.storage(), kInt32, std::vector<int64_t>{4}, std::vector<int64_t>{1}, 0));
  try {
    save_torch_bytes(IValue::list({f, as_int}));
    FAIL() << "a storage viewed as two dtypes was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("entry [1]: a tensor of int32 views storage '0' already saved as float32"),
              std::string::npos)
        << e.what();
  }
  // Quantized tensors are read (docs/quantization.md) but not written: an error, not a "torch.?" storage.
  try {
    save_torch_bytes(IValue(quantize_per_tensor(ones({3}), 0.1, 0, kQUInt8)));
    FAIL() << "a quantized tensor was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("save_torch: quint8 tensors cannot be written yet"), std::string::npos)
        << e.what();
  }
  try {
    save_torch("/nonexistent-dir/x.pt", IValue(1));
    FAIL() << "an unwritable path was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("save_torch: /nonexistent-dir/x.pt: cannot open the file for writing"),
              std::string::npos)
        << e.what();
  }
}

TEST(TorchSave, Zip64RecordsReadBack) {
  // Records and offsets past 4 GiB get ZIP64 fields; a lowered threshold
  // writes those forms on a small archive, which the reader must accept.
  std::string bytes;
  serialize::ZipWriter zip("archive", [&](const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); },
                           "test");
  zip.set_zip64_threshold(100);
  zip.write_record("small", "abc");
  zip.write_record("big", std::string(300, 'x'));   // size over the threshold
  zip.write_record("late", "offset over the threshold");
  zip.finish();
  serialize::MemorySource src(bytes.data(), bytes.size());
  serialize::ZipReader reader(src, "zip64");
  ASSERT_EQ(reader.entries().size(), 3u);
  EXPECT_EQ(reader.read(*reader.find("archive/small")), "abc");
  EXPECT_EQ(reader.read(*reader.find("archive/big")), std::string(300, 'x'));
  EXPECT_EQ(reader.read(*reader.find("archive/late")), "offset over the threshold");
  for (const auto& e : reader.entries()) EXPECT_EQ(reader.data_offset(e) % 64, 0u) << e.name;
}

// Writes the files scripts/check_torch_save.py reads with torch.load
// (core.torch_save_check sets EMBER_TORCH_SAVE_CHECK_DIR); on its own it
// checks that they load back in Ember.
TEST(TorchSaveCheck, WriteFilesForTorch) {
  testing::TempDir tmp;
  const char* env = std::getenv("EMBER_TORCH_SAVE_CHECK_DIR");
  const std::string dir = env ? env : tmp.path("");
  std::filesystem::create_directories(dir);
  save_torch(dir + "/state_dict.pt", state_dict_recipe());
  save_torch(dir + "/nested.pt", nested_recipe());

  // Adam on a linear model y = x w^T + b: three steps, then the model and the
  // optimizer are saved; the fourth step's result is saved for torch to match
  // after it loads both and steps once itself.
  Tensor w = (arange(6, kFloat32).reshape({2, 3}) / 10 - 0.2).requires_grad_(true);
  Tensor b = tensor<float>({0.1f, -0.2f}).requires_grad_(true);
  optim::Adam opt({w, b}, {.lr = 0.01, .betas = {0.8, 0.9}, .weight_decay = 0.1});
  const Tensor x = arange(12, kFloat32).reshape({4, 3}) / 10;
  const Tensor y = arange(8, kFloat32).reshape({4, 2}) / 4 - 1;
  auto step = [&] {
    opt.zero_grad();
    Tensor loss = (matmul(x, w.t()) + b - y).pow(2).mean();
    loss.backward();
    opt.step();
  };
  for (int k = 0; k < 3; ++k) step();
  StateDict model;
  model.insert("weight", w.detach());
  model.insert("bias", b.detach());
  save(dir + "/adam_model.pt", model);
  save(dir + "/adam_optimizer.pt", opt.state_dict());
  step();
  StateDict after;
  after.insert("weight", w.detach().clone());
  after.insert("bias", b.detach().clone());
  save_torch(dir + "/adam_after_step4.pt", after);

  // A module as libtorch's torch::save(module) writes it, for torch.jit.load,
  // beside its state_dict as a torch.save file.
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions{.in_channels = 2, .out_channels = 3, .kernel_size = 3, .bias = false}),
                     nn::BatchNorm2d(3), nn::ReLU(), nn::Flatten(), nn::Linear(12, 4));
  net->train();
  net->forward(randn({2, 2, 4, 4}));  // moves the running statistics
  nn::save_torchscript(dir + "/module_archive.pt", *net);
  save_torch(dir + "/module_state_dict.pt", net->state_dict());

  for (const char* name : {"state_dict.pt", "nested.pt", "adam_model.pt", "adam_optimizer.pt", "adam_after_step4.pt"})
    EXPECT_NO_THROW(serialize::load_torch(dir + "/" + name)) << name;
  const optim::OptimizerStateDict loaded =
      optim::optimizer_state_dict_from_torch(serialize::load_torch(dir + "/adam_optimizer.pt"));
  EXPECT_EQ(loaded.state.size(), 2u);
}

}  // namespace
}  // namespace ember
