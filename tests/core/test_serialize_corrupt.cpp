// Runs both loaders over corrupted copies of valid files (every truncation
// of small files, sampled truncations of larger ones, and random byte flips,
// from a fixed seed): each load must either succeed or throw ember::Error,
// never crash or throw anything else. The libFuzzer targets in fuzz/ explore
// the same entry points without a fixed corpus.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include <ember/ember.h>

#include "npy.h"
#include "serialize_test_util.h"

namespace ember {
namespace serialize_corrupt_test {

enum class Loader { Safetensors, Torch, TorchScript };

// Loads bytes; returns "" on success or ember::Error, else a description.
std::string try_load(Loader loader, const std::string& bytes) {
  try {
    if (loader == Loader::Safetensors) {
      auto c = serialize::load_safetensors_bytes(bytes.data(), bytes.size());
      for (const auto& [name, t] : c.tensors) (void)t.numel();
    } else if (loader == Loader::TorchScript) {
      serialize::ScriptModuleState s = serialize::load_torchscript_bytes(bytes.data(), bytes.size());
      for (const auto& [name, t] : s.state_dict) (void)t.numel();
    } else {
      serialize::IValue v = serialize::load_torch_bytes(bytes.data(), bytes.size());
      std::ostringstream ss;
      ss << v;  // walks the whole tree
    }
    return "";
  } catch (const Error&) {
    return "";
  } catch (const std::exception& e) {
    return std::string("non-ember exception: ") + e.what();
  } catch (...) {
    return "unknown exception";
  }
}

// Mutates `good`, passes each mutant through `wrap` and loads it.
void fuzz_file(Loader loader, const std::string& good, uint32_t seed,
               const std::function<std::string(const std::string&)>& wrap = {}) {
  auto try_load = [&](Loader l, const std::string& bytes) {
    return serialize_corrupt_test::try_load(l, wrap ? wrap(bytes) : bytes);
  };
  ASSERT_EQ(try_load(loader, good), "");
  std::mt19937 rng(seed);
  size_t cases = 0;
  // Truncations: all lengths up to 4 KB, then 400 random ones.
  const size_t all = std::min<size_t>(good.size(), 4096);
  for (size_t n = 0; n < all; ++n, ++cases)
    ASSERT_EQ(try_load(loader, good.substr(0, n)), "") << "truncated to " << n;
  for (int i = 0; i < 400 && good.size() > all; ++i, ++cases) {
    const size_t n = std::uniform_int_distribution<size_t>(all, good.size() - 1)(rng);
    ASSERT_EQ(try_load(loader, good.substr(0, n)), "") << "truncated to " << n;
  }
  // Byte flips: one to four bytes set to a random value or to 0x00/0xFF/0x7F.
  std::uniform_int_distribution<size_t> pos(0, good.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), count(1, 4), special(0, 5);
  for (int i = 0; i < 3000; ++i, ++cases) {
    std::string bad = good;
    const int k = count(rng);
    std::string where;
    for (int j = 0; j < k; ++j) {
      const size_t p = pos(rng);
      const int s = special(rng);
      bad[p] = static_cast<char>(s == 0 ? 0 : s == 1 ? 0xFF : s == 2 ? 0x7F : byte(rng));
      where += std::to_string(p) + " ";
    }
    ASSERT_EQ(try_load(loader, bad), "") << "bytes changed at " << where;
  }
  // Flips concentrated in the first 256 bytes (headers, pickle opcodes).
  std::uniform_int_distribution<size_t> head(0, std::min<size_t>(good.size(), 256) - 1);
  for (int i = 0; i < 1500; ++i, ++cases) {
    std::string bad = good;
    const size_t p = head(rng);
    bad[p] = static_cast<char>(byte(rng));
    ASSERT_EQ(try_load(loader, bad), "") << "byte changed at " << p;
  }
  EXPECT_GT(cases, 4000u);
}

std::string fixture_bytes(const std::string& name) {
  return testing::read_bytes(testing::fixture_path("core/serialize/" + name));
}

TEST(SerializeCorrupt, SafetensorsFromPython) { fuzz_file(Loader::Safetensors, fixture_bytes("py.safetensors"), 1); }

TEST(SerializeCorrupt, SafetensorsFromEmber) {
  StateDict d;
  d.insert("w", testing::random_tensor({3, 5}, kFloat32, 1));
  d.insert("mask", testing::random_tensor({7}, kBool, 2));
  d.insert("c", testing::random_tensor({2}, kComplex128, 3));
  const std::string bytes = serialize::save_safetensors_bytes(d, {{"k", "v"}});
  fuzz_file(Loader::Safetensors, bytes, 2);
}

// TorchScript archives (deflated code/ files, class records, NEWOBJ/BUILD),
// through both the attribute tree and the parameter walk; and what save_torch writes.
TEST(SerializeCorrupt, TorchScriptArchive) {
  const std::string bytes = testing::read_bytes(testing::fixture_path("core/torchscript/script_mixed.pt"));
  fuzz_file(Loader::TorchScript, bytes, 11);
  fuzz_file(Loader::Torch, bytes, 12);
}

TEST(SerializeCorrupt, TorchSaveFromEmber) {
  IDict d;
  d.insert("w", testing::random_tensor({3, 5}, kFloat32, 1));
  d.insert("w_t", d.find("w")->to_tensor().t());
  d.insert("meta", IValue::list({1, 2.5, "x", IValue()}));
  fuzz_file(Loader::Torch, serialize::save_torch_bytes(IValue::dict(std::move(d))), 13);
}

TEST(SerializeCorrupt, TorchZipStateDict) { fuzz_file(Loader::Torch, fixture_bytes("state_dict_zip.pt"), 3); }
TEST(SerializeCorrupt, TorchLegacyStateDict) { fuzz_file(Loader::Torch, fixture_bytes("state_dict_legacy.pt"), 4); }
TEST(SerializeCorrupt, TorchZipNested) { fuzz_file(Loader::Torch, fixture_bytes("nested_zip.pt"), 5); }
TEST(SerializeCorrupt, TorchLegacyNested) { fuzz_file(Loader::Torch, fixture_bytes("nested_legacy.pt"), 6); }
TEST(SerializeCorrupt, TorchProtocol4Nested) { fuzz_file(Loader::Torch, fixture_bytes("nested_p4.pt"), 7); }

// The zip CRC stops most flips before the unpickler: mutate data.pkl itself
// and re-wrap it in a valid archive with the original storages.
void fuzz_zip_pickle(const std::string& file, uint32_t seed) {
  const std::string zip = fixture_bytes(file);
  serialize::MemorySource src(zip.data(), zip.size());
  serialize::ZipReader reader(src, "fixture");
  std::string pickle;
  std::vector<testing::ZipEntrySpec> others;
  for (const auto& e : reader.entries()) {
    if (e.name.ends_with("/data.pkl")) pickle = reader.read(e);
    else others.push_back({e.name, reader.read(e)});
  }
  ASSERT_FALSE(pickle.empty());
  fuzz_file(Loader::Torch, pickle, seed, [&](const std::string& pkl) {
    std::vector<testing::ZipEntrySpec> entries{{"archive/data.pkl", pkl}};
    for (const auto& e : others)
      entries.push_back({"archive" + e.name.substr(e.name.find('/')), e.data});
    return testing::make_zip(entries);
  });
}

TEST(SerializeCorrupt, TorchPickleStateDict) { fuzz_zip_pickle("state_dict_zip.pt", 8); }
TEST(SerializeCorrupt, TorchPickleNested) { fuzz_zip_pickle("nested_zip.pt", 9); }
TEST(SerializeCorrupt, TorchPickleProtocol4) { fuzz_zip_pickle("nested_p4.pt", 10); }

}  // namespace serialize_corrupt_test
}  // namespace ember
