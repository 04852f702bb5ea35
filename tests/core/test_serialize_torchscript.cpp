// Loading TorchScript archives (Note [TorchScript archives] in torch_load.cpp):
// libtorch's C++ torch::save(module) and torch.jit.save of a scripted module
// load into hand-built Ember equivalents strictly and give the outputs the
// generator recorded (scripts/fixtures/torchscript.py); the restricted
// unpickler accepts only the archive's own classes; bad archives raise
// ember::Errors naming the file and the entry.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "npy.h"
#include "serialize/byte_source.h"
#include "serialize/zip_reader.h"
#include "serialize_test_util.h"
#include "tensor_expect.h"

namespace ember {
namespace {

namespace F = nn::functional;

std::string path_of(const std::string& name) { return testing::fixture_path("core/torchscript/" + name); }

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    FAIL() << "no error; expected one containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// scripts/fixtures/torchscript/libtorch_net.cpp, in Ember.
struct BlockImpl : nn::Module {
  explicit BlockImpl(int64_t c) : nn::Module("Block") {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions{.in_channels = c, .out_channels = c, .kernel_size = 3,
                                                                  .padding = 1, .bias = false}));
    bn1 = register_module("bn1", nn::BatchNorm2d(c));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions{.in_channels = c, .out_channels = c, .kernel_size = 3,
                                                                  .padding = 1, .bias = false}));
    bn2 = register_module("bn2", nn::BatchNorm2d(c));
  }
  Tensor forward(const Tensor& x) {
    Tensor y = F::relu(bn1(conv1(x)));
    return F::relu(bn2(conv2(y)) + x);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
EMBER_MODULE(Block);

struct LibtorchNetImpl : nn::Module {
  LibtorchNetImpl() : nn::Module("Net") {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions{.in_channels = 3, .out_channels = 8, .kernel_size = 3,
                                                                  .stride = 2, .padding = 1, .bias = false}));
    bn1 = register_module("bn1", nn::BatchNorm2d(8));
    layer1 = register_module("layer1", nn::Sequential(Block(8), Block(8)));
    fc = register_module("fc", nn::Linear(8, 5));
  }
  Tensor forward(const Tensor& input) {
    Tensor x = F::relu(bn1(conv1(input)));
    x = layer1(x);
    return fc(F::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::Sequential layer1{nullptr};
  nn::Linear fc{nullptr};
};
EMBER_MODULE(LibtorchNet);

// The Mixed module of scripts/fixtures/torchscript.py, in Ember.
struct MixedImpl : nn::Module {
  MixedImpl() : nn::Module("Mixed") {
    scale = register_parameter("scale", zeros({3}));
    offset = register_buffer("offset", zeros({3}));
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions{.in_channels = 2, .out_channels = 4, .kernel_size = 3,
                                                                .padding = 1, .bias = false}));
    bn = register_module("bn", nn::BatchNorm2d(4));
    head0 = nn::Linear(4, 6);
    head2 = nn::Linear(6, 3);
    head = register_module("head", nn::Sequential(head0, nn::ReLU(), head2));
    extra0 = nn::Linear(3, 3);
    extra1 = nn::Linear(nn::LinearOptions{.in = 3, .out = 3, .bias = false});
    extra = register_module("extra", nn::ModuleList(extra0, extra1));
  }
  Tensor forward(const Tensor& x) {
    Tensor y = F::relu(bn(conv(x))).mean({2, 3});
    y = extra1(extra0(head(y)));
    return y * scale + offset;
  }
  Tensor scale, offset;
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
  nn::Linear head0{nullptr}, head2{nullptr}, extra0{nullptr}, extra1{nullptr};
  nn::Sequential head{nullptr};
  nn::ModuleList extra{nullptr};
};
EMBER_MODULE(Mixed);

TEST(TorchScriptLoad, LibtorchModuleLoadsStrictlyAndMatchesLibtorchOutput) {
  const serialize::ScriptModuleState state = serialize::load_torchscript(path_of("libtorch_net.pt"));
  LibtorchNet net;
  EXPECT_EQ(state.state_dict.keys(), net->state_dict().keys());  // torch's order, Ember's order
  EXPECT_EQ(state.parameters, net->named_parameters().keys());
  EXPECT_EQ(state.buffers, net->named_buffers().keys());
  net->load_state_dict(state.state_dict, /*strict=*/true);
  net->eval();
  // What torch::save(module) wrote is also what load_torch_state_dict reads.
  EXPECT_EQ(serialize::load_torch_state_dict(path_of("libtorch_net.pt")).keys(), state.state_dict.keys());
  EXPECT_EQ(state.state_dict.at("layer1.1.bn2.num_batches_tracked").item<int64_t>(), 3);
  const IValue io = serialize::load_torch(path_of("libtorch_net_io.pt"));
  const Tensor out = net->forward(io.at("input").to_tensor());
  testing::expect_tensor_near(out, io.at("output").to_tensor(), 1e-5, 1e-5);
}

TEST(TorchScriptSave, ModuleArchiveRoundTripsThroughLoadTorchscript) {
  // libtorch's torch::save(module) layout, written by Ember from an Ember module.
  LibtorchNet net;
  net->load_state_dict(serialize::load_torch_state_dict(path_of("libtorch_net.pt")), true);
  testing::TempDir dir;
  nn::save_torchscript(dir.path("net.pt"), *net);
  const serialize::ScriptModuleState back = serialize::load_torchscript(dir.path("net.pt"));
  EXPECT_EQ(back.state_dict.keys(), net->state_dict().keys());
  EXPECT_EQ(back.parameters, net->named_parameters().keys());
  EXPECT_EQ(back.buffers, net->named_buffers().keys());
  for (const auto& [k, t] : net->state_dict()) EXPECT_TRUE(back.state_dict.at(k).equal(t)) << k;
  // Classes as libtorch names them; the Sequential's children as __annotations__["0"].
  const std::string bytes = testing::read_bytes(dir.path("net.pt"));
  serialize::MemorySource src(bytes.data(), bytes.size());
  serialize::ZipReader zip(src, "net.pt");
  const std::string root = zip.read(*zip.find("net/code/__torch__.py"));
  EXPECT_EQ(root, "class Module(Module):\n  __parameters__ = []\n  __buffers__ = []\n"
                  "  conv1 : __torch__.___torch_mangle_0.Module\n  bn1 : __torch__.___torch_mangle_1.Module\n"
                  "  layer1 : __torch__.___torch_mangle_2.Module\n  fc : __torch__.___torch_mangle_13.Module\n");
  EXPECT_NE(zip.read(*zip.find("net/code/__torch__/___torch_mangle_2.py")).find("__annotations__[\"0\"] = __torch__.___torch_mangle_3.Module"),
            std::string::npos);
}

TEST(TorchScriptLoad, ScriptedModuleFollowsTheArchivesParameterAndBufferLists) {
  const serialize::ScriptModuleState state = serialize::load_torchscript(path_of("script_mixed.pt"));
  const IValue io = serialize::load_torch(path_of("script_mixed_io.pt"));
  std::vector<std::string> keys, params;
  for (const IValue& k : io.at("keys").to_list()) keys.push_back(k.to_string());
  for (const IValue& k : io.at("parameters").to_list()) params.push_back(k.to_string());
  EXPECT_EQ(state.state_dict.keys(), keys);  // torch's scripted.state_dict().keys(), in order
  EXPECT_EQ(state.parameters, params);
  EXPECT_EQ(state.buffers, (std::vector<std::string>{"offset", "bn.running_mean", "bn.running_var",
                                                      "bn.num_batches_tracked"}));
  EXPECT_FALSE(state.state_dict.contains("plain"));  // a tensor attribute, not a parameter
  for (const auto& [k, t] : state.state_dict) EXPECT_FALSE(t.requires_grad()) << k;
  Mixed m;
  m->load_state_dict(state.state_dict, /*strict=*/true);
  m->eval();
  testing::expect_tensor_near(m->forward(io.at("input").to_tensor()), io.at("output").to_tensor(), 1e-5, 1e-5);
}

TEST(TorchScriptLoad, LoadTorchGivesTheAttributeTree) {
  const IValue v = serialize::load_torch(path_of("script_mixed.pt"));
  EXPECT_FALSE(v.at("training").to_bool());
  EXPECT_TRUE(v.at("plain").to_tensor().requires_grad());
  EXPECT_TRUE(v.at("conv").at("bias").is_none());
  EXPECT_EQ(v.at("head").at("0").at("weight").to_tensor().sizes().vec(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(v.at("conv").at("_reversed_padding_repeated_twice").to_int_list(), (std::vector<int64_t>{1, 1, 1, 1}));
  // A torch.save file is not a TorchScript archive.
  expect_error([] { serialize::load_torchscript(path_of("script_mixed_io.pt")); },
               "script_mixed_io.pt: not a TorchScript archive");
}

// A pickle from a string literal (which may hold NUL bytes).
template <size_t N>
std::string pk(const char (&bytes)[N]) {
  return std::string(bytes, N - 1);
}

// The archive's entries, to rebuild it with changes.
std::vector<testing::ZipEntrySpec> entries_of(const std::string& bytes) {
  serialize::MemorySource src(bytes.data(), bytes.size());
  serialize::ZipReader zip(src, "test");
  std::vector<testing::ZipEntrySpec> out;
  for (const auto& e : zip.entries()) out.push_back({e.name, zip.read_text(e, 1 << 30)});
  return out;
}

TEST(TorchScriptLoad, ObjectsSavedThroughGetstateKeepTheirState) {
  // M (a module without parameters) holds an object of the TorchScript class C
  // whose BUILD state is what its __getstate__ returned: the tuple (1, 2).
  const std::string code = "class M(Module):\n  __parameters__ = []\n  __buffers__ = []\n  a : __torch__.C\n"
                           "class C:\n  x : int\n  def __getstate__(self: __torch__.C) -> Tuple[int, int]:\n"
                           "    return (1, 2)\n";
  const std::string pickle = pk("\x80\x02" "c__torch__\nM\n)\x81}X\x01\x00\x00\x00" "a" "c__torch__\nC\n)\x81K\x01K\x02\x86" "bsb.");
  const std::string z = testing::make_zip({{"a/code/__torch__.py", code}, {"a/data.pkl", pickle}});
  const IValue tree = serialize::load_torch_bytes(z.data(), z.size());
  EXPECT_TRUE(tree.at("a").is_tuple());
  EXPECT_EQ(tree.at("a").to_int_list(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(serialize::load_torchscript_bytes(z.data(), z.size()).state_dict.empty());
  // A module class with parameters must keep them as attributes.
  const std::string code2 = "class M(Module):\n  __parameters__ = [\"w\", ]\n  __buffers__ = []\n";
  const std::string z2 = testing::make_zip(
      {{"a/code/__torch__.py", code2}, {"a/data.pkl", pk("\x80\x02" "c__torch__\nM\n)\x81K\x01K\x02\x86" "b.")}});
  expect_error([&] { serialize::load_torchscript_bytes(z2.data(), z2.size()); },
               "module the archive's root (class __torch__.M) declares parameters or buffers but its state is a tuple");
}

TEST(TorchScriptLoad, BadArchivesNameTheFileAndEntry) {
  testing::TempDir dir;
  const std::string original = testing::read_bytes(path_of("libtorch_net.pt"));
  const std::string code = "class Module(Module):\n  __parameters__ = []\n  __buffers__ = []\n";
  auto write = [&](const std::string& name, const std::string& bytes) {
    testing::write_bytes(dir.path(name), bytes);
    return dir.path(name);
  };
  // A global outside __torch__ stays refused.
  const std::string evil = write("evil.pt", testing::make_zip({{"a/code/__torch__.py", code},
                                                              {"a/data.pkl", pk("\x80\x02" "cposix\nsystem\nq\x00.")}}));
  expect_error([&] { serialize::load_torchscript(evil); },
               "load_torchscript: " + evil + ": a/data.pkl: global 'posix.system' is not allowed");
  // So is a __torch__ class the archive does not define.
  const std::string unknown =
      write("unknown.pt", testing::make_zip({{"a/code/__torch__.py", code},
                                             {"a/data.pkl", pk("\x80\x02" "c__torch__\nEvil\n)\x81}b.")}}));
  expect_error([&] { serialize::load_torch_state_dict(unknown); },
               "a/data.pkl: global '__torch__.Evil' is not a class of this archive");
  // A module that declares a parameter it does not hold.
  const std::string missing_param =
      write("missing_param.pt",
            testing::make_zip({{"a/code/__torch__.py", "class Module(Module):\n  __parameters__ = [\"weight\", ]\n  __buffers__ = []\n"},
                               {"a/data.pkl", pk("\x80\x02" "c__torch__\nModule\n)\x81}b.")}}));
  expect_error([&] { serialize::load_torchscript(missing_param); },
               "module the archive's root (class __torch__.Module) declares parameter 'weight' but has no such attribute");
  // A malformed class record.
  const std::string bad_record =
      write("bad_record.pt", testing::make_zip({{"a/code/__torch__.py", "class Module(Module):\n  __parameters__ = [weight]\n"},
                                                {"a/data.pkl", pk("\x80\x02N.")}}));
  expect_error([&] { serialize::load_torchscript(bad_record); }, "a/code/__torch__.py: line 2: expected a double-quoted name");
  // A truncated archive.
  const std::string truncated = write("truncated.pt", original.substr(0, original.size() / 2));
  expect_error([&] { serialize::load_torchscript(truncated); }, "load_torchscript: " + truncated + ": ");
  // A missing storage.
  std::vector<testing::ZipEntrySpec> entries = entries_of(original);
  std::erase_if(entries, [](const auto& e) { return e.name == "libtorch_net/data/3"; });
  const std::string no_storage = write("no_storage.pt", testing::make_zip(entries));
  expect_error([&] { serialize::load_torchscript(no_storage); },
               "libtorch_net/data.pkl: storage '3' has no entry libtorch_net/data/3");
  // NEWOBJ stays refused in ordinary torch.save files.
  expect_error([] {
    const std::string z = testing::make_zip({{"a/data.pkl", pk("\x80\x02" "c__torch__\nModule\n)\x81.")}});
    serialize::load_torch_bytes(z.data(), z.size());
  }, "global '__torch__.Module' is not allowed");
}

}  // namespace
}  // namespace ember
