// CIFAR-10 / CIFAR-100 (binary version) against torchvision 0.14, which read
// the same arrays from the Python (pickle) version; bad files made here.
#include <ember/datasets/cifar.h>
#include <ember/ops/factories.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_cifar_test {

using ember::testing::at;
using ember::testing::copy_tree;
using ember::testing::error_of;
using ember::testing::formats_dir;
using ember::testing::formats_expected;
using ember::testing::formats_npy;
using ember::testing::read_bytes;
using ember::testing::TempDir;
using ember::testing::tensors_equal;
using ember::testing::write_bytes;

template <class DS>
void check_split(const std::string& key, bool train) {
  SCOPED_TRACE(key + (train ? " train" : " test"));
  const auto& exp = at(formats_expected(), key);
  const std::string split = train ? "train" : "test";
  DS ds(formats_dir() + "/cifar", {.train = train});
  Tensor images = formats_npy(key + "_" + split + "_images");  // [N, 3, 32, 32]
  const auto& targets = at(at(exp, split), "targets").to_list();
  ASSERT_EQ(ds.size(), static_cast<int64_t>(targets.size()));
  EXPECT_TRUE(tensors_equal(ds.data(), images));
  for (int64_t i = 0; i < ds.size(); ++i) {
    auto [image, target] = ds.get(i);
    EXPECT_EQ(image.sizes(), IntArrayRef({3, 32, 32}));
    EXPECT_TRUE(tensors_equal(image, images[i]));
    EXPECT_EQ(target, targets[static_cast<size_t>(i)].to_int());
  }
  const auto& classes = at(exp, "classes").to_list();
  ASSERT_EQ(ds.classes().size(), classes.size());
  for (size_t i = 0; i < classes.size(); ++i) EXPECT_EQ(ds.classes()[i], classes[i].to_string());
  EXPECT_EQ(ds.class_to_idx().at(classes[3].to_string()), 3);
}

TEST(FormatsCIFAR, CIFAR10MatchesTorchvision) {
  check_split<CIFAR10>("cifar10", true);
  check_split<CIFAR10>("cifar10", false);
}

TEST(FormatsCIFAR, CIFAR100FineMatchesTorchvision) {
  check_split<CIFAR100>("cifar100", true);
  check_split<CIFAR100>("cifar100", false);
}

TEST(FormatsCIFAR, CIFAR100CoarseLabels) {
  const auto& exp = at(formats_expected(), "cifar100");
  for (bool train : {true, false}) {
    const auto& split = at(exp, train ? "train" : "test");
    const auto& coarse = at(split, "coarse_targets").to_list();
    const auto& fine = at(split, "targets").to_list();
    CIFAR100 fine_ds(formats_dir() + "/cifar", {.train = train});
    CIFAR100 coarse_ds(formats_dir() + "/cifar", {.train = train, .coarse = true});
    ASSERT_EQ(coarse_ds.size(), static_cast<int64_t>(coarse.size()));
    for (int64_t i = 0; i < coarse_ds.size(); ++i) {
      EXPECT_EQ(coarse_ds.get(i).second, coarse[static_cast<size_t>(i)].to_int());
      EXPECT_EQ(fine_ds.coarse_target(i), coarse[static_cast<size_t>(i)].to_int());
      EXPECT_EQ(coarse_ds.fine_targets()[i].item<int64_t>(), fine[static_cast<size_t>(i)].to_int());
      EXPECT_TRUE(tensors_equal(coarse_ds.get(i).first, fine_ds.get(i).first));
    }
    EXPECT_TRUE(tensors_equal(coarse_ds.targets(), coarse_ds.coarse_targets()));
    EXPECT_TRUE(tensors_equal(fine_ds.targets(), fine_ds.fine_targets()));
    const auto& names = at(exp, "coarse_classes").to_list();
    ASSERT_EQ(coarse_ds.classes().size(), 20u);
    for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(coarse_ds.classes()[k], names[k].to_string());
    EXPECT_EQ(coarse_ds.fine_classes().size(), 100u);
    EXPECT_EQ(fine_ds.classes().size(), 100u);
  }
}

TEST(FormatsCIFAR, TransformsAndCopies) {
  CIFAR10 ds(formats_dir() + "/cifar",
             {.train = false,
              .transform = [](const Tensor& t) { return t.narrow(0, 0, 1); },
              .target_transform = [](int64_t t) { return t * 10; }});
  auto [image, target] = ds.get(1);
  EXPECT_EQ(image.sizes(), IntArrayRef({1, 32, 32}));
  EXPECT_EQ(target, ds.targets()[1].item<int64_t>() * 10);
  CIFAR10 plain(formats_dir() + "/cifar");
  Tensor a = plain.get(0).first;
  a.fill_(7);
  EXPECT_FALSE(tensors_equal(plain.get(0).first, a));
}

TEST(FormatsCIFAR, MissingAndBadFiles) {
  TempDir tmp;
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "none"), "CIFAR10: dataset not found",
                     "none/cifar-10-batches-bin", "data_batch_1.bin", "data_batch_5.bin",
                     "batches.meta.txt", "binary version", "never downloads");
  EXPECT_EMBER_ERROR(CIFAR100(tmp / "none", {.train = false}), "CIFAR100: dataset not found",
                     "cifar-100-binary", "test.bin", "fine_label_names.txt",
                     "coarse_label_names.txt");
  EXPECT_EMBER_ERROR(CIFAR10(formats_dir() + "/cifar", {.coarse = true}),
                     "coarse labels exist only in CIFAR-100");

  copy_tree(formats_dir() + "/cifar", tmp / "c");
  const std::string bin10 = tmp / "c/cifar-10-batches-bin";
  // One batch missing: only it is named as missing.
  std::filesystem::rename(bin10 + "/data_batch_3.bin", bin10 + "/moved.bin");
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "c"), "missing: data_batch_3.bin)");
  EXPECT_EQ(CIFAR10(tmp / "c", {.train = false}).size(), 3);  // the test split does not need it
  std::filesystem::rename(bin10 + "/moved.bin", bin10 + "/data_batch_3.bin");
  // A truncated batch.
  const std::string batch = read_bytes(bin10 + "/data_batch_2.bin");
  write_bytes(bin10 + "/data_batch_2.bin", batch.substr(0, batch.size() - 100));
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "c"), "data_batch_2.bin holds 6046 bytes",
                     "not a whole number of 3073-byte records", "truncated");
  write_bytes(bin10 + "/data_batch_2.bin", "");
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "c"), "data_batch_2.bin holds 0 bytes");
  // A label out of range.
  std::string bad = batch;
  bad[3073] = 10;
  write_bytes(bin10 + "/data_batch_2.bin", bad);
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "c"),
                     "data_batch_2.bin, record 1: label 10 is out of range for 10 classes");
  write_bytes(bin10 + "/data_batch_2.bin", batch);
  EXPECT_EQ(CIFAR10(tmp / "c").size(), 10);
  // Class-name files with the wrong count.
  write_bytes(bin10 + "/batches.meta.txt", "a\nb\n");
  EXPECT_EMBER_ERROR(CIFAR10(tmp / "c"), "batches.meta.txt lists 2 class names; expected 10");
  const std::string bin100 = tmp / "c/cifar-100-binary";
  std::string test100 = read_bytes(bin100 + "/test.bin");
  test100[0] = 20;  // coarse label
  write_bytes(bin100 + "/test.bin", test100);
  EXPECT_EMBER_ERROR(CIFAR100(tmp / "c", {.train = false}),
                     "test.bin, record 0: coarse label 20 is out of range for 20 classes");
  test100[0] = 0;
  test100[3074 + 1] = static_cast<char>(100);  // fine label of record 1
  write_bytes(bin100 + "/test.bin", test100);
  EXPECT_EMBER_ERROR(CIFAR100(tmp / "c", {.train = false}),
                     "record 1: fine label 100 is out of range for 100 classes");

  CIFAR10 ok(formats_dir() + "/cifar", {.train = false});
  EXPECT_EMBER_ERROR(ok.get(3), "CIFAR10: index 3 is out of range");
}

}  // namespace ember::datasets

}  // namespace formats_cifar_test
