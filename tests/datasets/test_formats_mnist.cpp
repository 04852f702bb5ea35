// MNIST, FashionMNIST and KMNIST against torchvision 0.14 on the committed IDX
// files (FashionMNIST's gzipped), and the IDX validation on files made here.
#include <ember/datasets/mnist.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

#include "format_util.h"
#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_mnist_test {

using ember::testing::at;
using ember::testing::copy_tree;
using ember::testing::formats_dir;
using ember::testing::formats_expected;
using ember::testing::formats_npy;
using ember::testing::gzip_stored;
using ember::testing::read_bytes;
using ember::testing::TempDir;
using ember::testing::tensors_equal;
using ember::testing::write_bytes;

template <class DS>
void check_against_torchvision(const std::string& key, const std::string& prefix) {
  const auto& exp = at(formats_expected(), key);
  for (bool train : {true, false}) {
    SCOPED_TRACE(train ? "train" : "test");
    DS ds(formats_dir() + "/mnist", {.train = train});
    const std::string split = train ? "train" : "test";
    Tensor images = formats_npy(prefix + "_" + split + "_images");  // [N, 28, 28]
    const auto& targets = at(at(exp, split), "targets").to_list();
    ASSERT_EQ(ds.size(), static_cast<int64_t>(targets.size()));
    EXPECT_TRUE(tensors_equal(ds.data(), images));
    EXPECT_EQ(ds.targets().dtype(), kInt64);
    for (int64_t i = 0; i < ds.size(); ++i) {
      auto [image, target] = ds.get(i);
      EXPECT_EQ(image.sizes(), IntArrayRef({1, 28, 28}));
      EXPECT_EQ(image.dtype(), kUInt8);
      EXPECT_TRUE(tensors_equal(image, images[i].unsqueeze(0)));
      EXPECT_EQ(target, targets[static_cast<size_t>(i)].to_int());
      EXPECT_EQ(ds.targets()[i].template item<int64_t>(), target);
    }
  }
  DS ds(formats_dir() + "/mnist");
  const auto& classes = at(exp, "classes").to_list();
  ASSERT_EQ(ds.classes().size(), classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    EXPECT_EQ(ds.classes()[i], classes[i].to_string());
    EXPECT_EQ(ds.class_to_idx().at(classes[i].to_string()), static_cast<int64_t>(i));
  }
}

TEST(FormatsMNIST, MatchesTorchvision) { check_against_torchvision<MNIST>("mnist", "mnist"); }
TEST(FormatsMNIST, FashionMNISTFromGzipMatchesTorchvision) {
  check_against_torchvision<FashionMNIST>("fashion_mnist", "fashion_mnist");
}
TEST(FormatsMNIST, KMNISTMatchesTorchvision) {
  check_against_torchvision<KMNIST>("kmnist", "kmnist");
}

TEST(FormatsMNIST, SamplesAreCopiesAndTransformsApply) {
  MNIST ds(formats_dir() + "/mnist", {.transform = [](const Tensor& t) { return t.to(kFloat32); },
                                      .target_transform = [](int64_t t) { return -t; }});
  auto [image, target] = ds.get(2);
  EXPECT_EQ(image.dtype(), kFloat32);
  EXPECT_EQ(target, -ds.targets()[2].item<int64_t>());
  MNIST plain(formats_dir() + "/mnist");
  Tensor a = plain.get(0).first;
  a.fill_(0);
  EXPECT_FALSE(tensors_equal(plain.get(0).first, a));
  EXPECT_EQ(plain.raw_folder(), formats_dir() + "/mnist/MNIST/raw");
  EXPECT_TRUE(plain.train());
}

TEST(FormatsMNIST, PlainFilePreferredOverGzip) {
  TempDir tmp;
  copy_tree(formats_dir() + "/mnist/MNIST", tmp / "MNIST");
  // A gzipped copy of the test split with one label changed is ignored while
  // the plain file exists.
  std::string labels = read_bytes(tmp / "MNIST/raw/t10k-labels-idx1-ubyte");
  std::string changed = labels;
  changed[8] = static_cast<char>((changed[8] + 1) % 10);
  write_bytes(tmp / "MNIST/raw/t10k-labels-idx1-ubyte.gz", gzip_stored(changed));
  MNIST a(tmp.path(), {.train = false});
  EXPECT_EQ(a.get(0).second, static_cast<int64_t>(labels[8]));
  std::filesystem::remove(tmp / "MNIST/raw/t10k-labels-idx1-ubyte");
  MNIST b(tmp.path(), {.train = false});
  EXPECT_EQ(b.get(0).second, static_cast<int64_t>(changed[8]));
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string idx(uint32_t magic, std::initializer_list<uint32_t> dims, size_t data_bytes) {
  std::string s = be32(magic);
  for (uint32_t d : dims) s += be32(d);
  s.append(data_bytes, '\x05');
  return s;
}

// A root with valid test-split files, then `file` replaced by `content`.
std::string mnist_error(const std::string& file, const std::string& content) {
  TempDir tmp;
  write_bytes(tmp / "MNIST/raw/t10k-images-idx3-ubyte", idx(0x803, {3, 28, 28}, 3 * 784));
  write_bytes(tmp / "MNIST/raw/t10k-labels-idx1-ubyte", idx(0x801, {3}, 3));
  std::filesystem::remove(tmp / ("MNIST/raw/" + file.substr(0, file.find(".gz"))));
  write_bytes(tmp / ("MNIST/raw/" + file), content);
  return ember::testing::error_of([&] { MNIST(tmp.path(), {.train = false}); });
}

TEST(FormatsMNIST, ValidFilesMadeHereLoad) {
  TempDir tmp;
  write_bytes(tmp / "MNIST/raw/t10k-images-idx3-ubyte", idx(0x803, {3, 5, 4}, 3 * 20));
  write_bytes(tmp / "MNIST/raw/t10k-labels-idx1-ubyte.gz", gzip_stored(idx(0x801, {3}, 3)));
  MNIST ds(tmp.path(), {.train = false});
  EXPECT_EQ(ds.size(), 3);
  // Any image size is read (torchvision's reader does not insist on 28 x 28).
  EXPECT_EQ(ds.get(2).first.sizes(), IntArrayRef({1, 5, 4}));
  EXPECT_EQ(ds.get(2).second, 5);
  // An empty split is an empty dataset.
  write_bytes(tmp / "MNIST/raw/t10k-images-idx3-ubyte", idx(0x803, {0, 28, 28}, 0));
  write_bytes(tmp / "MNIST/raw/t10k-labels-idx1-ubyte.gz", gzip_stored(idx(0x801, {0}, 0)));
  EXPECT_EQ(MNIST(tmp.path(), {.train = false}).size(), 0);
}

TEST(FormatsMNIST, CorruptFilesRaise) {
  auto expect_has = [](const std::string& msg, std::initializer_list<const char*> parts) {
    EXPECT_FALSE(msg.empty());
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << " lacks " << p;
  };
  // Magic numbers.
  expect_has(
      mnist_error("t10k-images-idx3-ubyte", idx(0x12340803, {3, 28, 28}, 3 * 784)),
      {"MNIST", "t10k-images-idx3-ubyte", "bad magic number 0x12340803", "expected 0x00000803"});
  expect_has(mnist_error("t10k-images-idx3-ubyte", idx(0x0B03, {3, 28, 28}, 2 * 3 * 784)),
             {"t10k-images-idx3-ubyte", "type int16", "expected unsigned bytes"});
  expect_has(mnist_error("t10k-labels-idx1-ubyte", idx(0x803, {3, 1, 1}, 3)),
             {"t10k-labels-idx1-ubyte", "has 3 dimensions", "expected 1 (0x00000801)"});
  // Lengths.
  expect_has(
      mnist_error("t10k-images-idx3-ubyte", idx(0x803, {3, 28, 28}, 2 * 784)),
      {"t10k-images-idx3-ubyte", "truncated", "3 x 28 x 28", "2352 bytes of data", "holds 1568"});
  expect_has(mnist_error("t10k-images-idx3-ubyte", idx(0x803, {3, 28, 28}, 3 * 784 + 5)),
             {"t10k-images-idx3-ubyte", "5 bytes after the 3 x 28 x 28 elements"});
  expect_has(mnist_error("t10k-images-idx3-ubyte", std::string("\x00\x00", 2)),
             {"too short for an IDX file (2 bytes"});
  expect_has(mnist_error("t10k-images-idx3-ubyte", be32(0x803) + be32(3) + std::string(1, '\0')),
             {"truncated inside its IDX header (9 of 16 bytes)"});
  // Sizes that would need terabytes: refused before allocating anything.
  expect_has(mnist_error("t10k-images-idx3-ubyte", idx(0x803, {0xFFFFFFFF, 28, 28}, 10)),
             {"truncated", "4294967295 x 28 x 28"});
  expect_has(
      mnist_error("t10k-images-idx3-ubyte", idx(0x803, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, 10)),
      {"4294967295 x 4294967295 x 4294967295", "overflows int64", "too large to be real"});
  expect_has(
      mnist_error("t10k-images-idx3-ubyte.gz", gzip_stored(idx(0x803, {0xFFFFFFFF, 28, 28}, 100))),
      {"t10k-images-idx3-ubyte.gz", "truncated", "decompressed file holds 100"});
  // Counts that disagree; images of zero size.
  expect_has(mnist_error("t10k-labels-idx1-ubyte", idx(0x801, {4}, 4)),
             {"holds 3 images but", "t10k-labels-idx1-ubyte holds 4 labels"});
  expect_has(mnist_error("t10k-images-idx3-ubyte", idx(0x803, {3, 0, 28}, 0)),
             {"images of size 0 x 28"});
  // gzip streams: cut short, corrupt, and with data after the elements.
  const std::string good = gzip_stored(idx(0x803, {3, 28, 28}, 3 * 784));
  expect_has(mnist_error("t10k-images-idx3-ubyte.gz", good.substr(0, good.size() / 2)),
             {"t10k-images-idx3-ubyte.gz", "truncated"});
  std::string corrupt = good;
  corrupt[10] = '\x07';  // an invalid deflate block type
  expect_has(mnist_error("t10k-images-idx3-ubyte.gz", corrupt),
             {"t10k-images-idx3-ubyte.gz", "not a valid gzip stream"});
  std::string bad_crc = good;
  bad_crc[bad_crc.size() - 8] ^= 1;
  expect_has(mnist_error("t10k-images-idx3-ubyte.gz", bad_crc), {"t10k-images-idx3-ubyte.gz"});
  expect_has(
      mnist_error("t10k-images-idx3-ubyte.gz", gzip_stored(idx(0x803, {3, 28, 28}, 3 * 784 + 1))),
      {"has data after the 3 x 28 x 28 elements"});
}

// The helper that wraps decoded bytes refuses sizes that do not match them
// (or overflow: Note [Checked sizes]) instead of making a tensor past its bytes.
TEST(FormatsMNIST, TensorFromBytesChecksTheSizes) {
  EXPECT_EQ(detail::tensor_from_bytes(std::vector<uint8_t>(6, 1), {2, 3}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(detail::tensor_from_bytes({}, {0, 5}).numel(), 0);
  EXPECT_THROW(detail::tensor_from_bytes(std::vector<uint8_t>(5, 1), {2, 3}), Error);
  EXPECT_THROW(detail::tensor_from_bytes(std::vector<uint8_t>(1, 1), {int64_t{1} << 32, int64_t{1} << 32}), Error);
  EXPECT_THROW(detail::tensor_from_bytes(std::vector<uint8_t>(1, 1), {-1}), Error);
}

TEST(FormatsMNIST, MissingFilesNameTheLayout) {
  TempDir tmp;
  EXPECT_EMBER_ERROR(MNIST(tmp / "none"), "MNIST: dataset not found",
                     "none/MNIST/raw/train-images-idx3-ubyte", "train-labels-idx1-ubyte", ".gz",
                     "never downloads");
  write_bytes(tmp / "KMNIST/raw/t10k-images-idx3-ubyte", idx(0x803, {1, 28, 28}, 784));
  EXPECT_EMBER_ERROR(KMNIST(tmp.path(), {.train = false}), "KMNIST: dataset not found",
                     "missing: t10k-labels-idx1-ubyte");
  MNIST ds(formats_dir() + "/mnist");
  EXPECT_EMBER_ERROR(ds.get(6), "MNIST: index 6 is out of range for a dataset of 6 samples");
}

}  // namespace ember::datasets

}  // namespace formats_mnist_test
