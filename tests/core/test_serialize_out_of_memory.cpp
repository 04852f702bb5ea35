// Running out of memory while loading a checkpoint is an ember::Error naming
// the file and what was being allocated, never a bare std::bad_alloc (Note
// [Checkpoint memory budget]); and sharing keeps real memory low. Each case
// loads a generated file in a child process under an address-space limit
// (oom_child.h).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "oom_child.h"
#include "serialize_test_util.h"

namespace ember {
namespace serialize_out_of_memory_test {

using namespace std::string_literals;
using testing::PickleWriter;
using testing::torch_zip;

constexpr const char* kChild = "SerializeOutOfMemoryChild.Run";
constexpr uint64_t kMiB = uint64_t{1} << 20;

// The child: loads EMBER_OOM_FILE as EMBER_OOM_CASE says, with 48 MiB of
// address space to spare.
TEST(SerializeOutOfMemoryChild, Run) {
  const char* which = std::getenv("EMBER_OOM_CASE");
  const char* file = std::getenv("EMBER_OOM_FILE");
  if (which == nullptr || file == nullptr) GTEST_SKIP() << "runs in the child process of SerializeOutOfMemory.*";
  const std::string path = file, mode = which;
  // The budget is lifted so that the address-space limit is what stops the load.
  serialize::set_checkpoint_memory_limit(1 << 20, 0);
  testing::run_limited(48 * kMiB, [&] {
    if (mode == "safetensors") {
      ember::load(path);
    } else {
      serialize::load_torch(path);
    }
  });
}

class SerializeOutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::under_asan()) GTEST_SKIP() << "an address-space limit means nothing under AddressSanitizer";
  }
  std::string run(const std::string& which, const std::string& name, const std::string& bytes) {
    const std::string path = dir_.path(name);
    testing::write_bytes(path, bytes);
    const std::string output = testing::run_oom_child(kChild, which, path);
    const std::string line = testing::outcome(output);
    EXPECT_FALSE(line.empty()) << "the child printed no outcome (it crashed?):\n" << output;
    return line;
  }
  testing::TempDir dir_;
};

// A 64 MiB storage: the allocator's failure names the storage and the file.
TEST_F(SerializeOutOfMemory, Storage) {
  const int32_t numel = 16 << 20;
  const std::string line = run("torch", "big.pt",
                               torch_zip(PickleWriter().tensor("FloatStorage", "0", numel, 0, {numel}, {1}).stop().bytes(),
                                         {{"0", std::string(size_t(numel) * 4, '\0')}}));
  EXPECT_NE(line.find("ERROR: load_torch: " + dir_.path("big.pt") +
                      ": out of memory while allocating storage '0' (67108864 bytes)"),
            std::string::npos)
      << line;
}

// 1 M empty lists (~250 MiB of arena and IValues): std::bad_alloc deep in the
// unpickler becomes an error naming the file and the last thing charged.
TEST_F(SerializeOutOfMemory, UnpicklerArena) {
  PickleWriter w;
  w.op(']').mark().raw(std::string(1 << 20, ']')).op('e').stop();
  const std::string line = run("torch", "lists.pt", torch_zip(w.bytes()));
  EXPECT_NE(line.find("ERROR: load_torch: " + dir_.path("lists.pt") + ": out of memory (std::bad_alloc) while allocating "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("bytes already held by this load"), std::string::npos) << line;
}

// A 64 MiB safetensors tensor.
TEST_F(SerializeOutOfMemory, SafetensorsTensor) {
  StateDict sd;
  sd.insert("w", zeros({16 << 20}));
  const std::string line = run("safetensors", "big.safetensors", serialize::save_safetensors_bytes(sd));
  EXPECT_NE(line.find("ERROR: load: " + dir_.path("big.safetensors") +
                      ": out of memory while allocating tensor 'w' (67108864 bytes)"),
            std::string::npos)
      << line;
}

// Issue 18's case: a 1 MB string referenced 1,000 times needed 1 GB. Shared,
// it loads in the 48 MiB the child has to spare.
TEST_F(SerializeOutOfMemory, SharedStringsFitInRealMemory) {
  PickleWriter w;
  w.str(std::string(1 << 20, 'a')).raw("q\x00"s).op('0').op(']').mark();
  for (int i = 0; i < 1000; ++i) w.raw("h\x00"s);
  w.op('e');
  // ... also as the key of 1,000 dicts.
  w.mark();
  for (int i = 0; i < 1000; ++i) w.op('}').raw("h\x00"s).op('N').op('s');
  w.op('l').op('\x86').stop();
  EXPECT_EQ(run("torch", "shared.pt", torch_zip(w.bytes())), "LOADED");
}

}  // namespace serialize_out_of_memory_test
}  // namespace ember
