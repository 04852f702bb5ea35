// ImageFolder / DatasetFolder against torchvision 0.14's ImageFolder on the
// committed tree (tests/data/datasets/datasets_formats/folder), plus ordering,
// filtering, links and error cases on trees made here.
#include <unistd.h>

#include <atomic>
#include <thread>

#include <ember/datasets/folder.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_folder_test {

using ember::testing::at;
using ember::testing::formats_dir;
using ember::testing::formats_expected;
using ember::testing::formats_npy;
using ember::testing::TempDir;
using ember::testing::tensors_equal;
using ember::testing::write_bytes;

TEST(FormatsImageFolder, MatchesTorchvision) {
  const std::string root = formats_dir() + "/folder";
  ImageFolder ds(root);
  const auto& exp = at(formats_expected(), "folder");
  const auto& classes = at(exp, "classes").to_list();
  ASSERT_EQ(ds.classes().size(), classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    EXPECT_EQ(ds.classes()[i], classes[i].to_string());
    EXPECT_EQ(ds.class_to_idx().at(classes[i].to_string()), static_cast<int64_t>(i));
  }
  const auto& samples = at(exp, "samples").to_list();
  ASSERT_EQ(ds.size(), static_cast<int64_t>(samples.size()));
  for (size_t i = 0; i < samples.size(); ++i) {
    SCOPED_TRACE(samples[i].to_list()[0].to_string());
    EXPECT_EQ(ds.samples()[i].first, root + "/" + samples[i].to_list()[0].to_string());
    EXPECT_EQ(ds.samples()[i].second, samples[i].to_list()[1].to_int());
    EXPECT_EQ(ds.targets()[i], samples[i].to_list()[1].to_int());
    auto [image, target] = ds.get(static_cast<int64_t>(i));
    EXPECT_EQ(target, samples[i].to_list()[1].to_int());
    // PIL's convert("RGB") of RGB, L, RGBA and palette PNGs and of JPEGs.
    Tensor expected = formats_npy("folder_" + std::to_string(i));
    EXPECT_TRUE(tensors_equal(image, expected)) << image.sizes() << " vs " << expected.sizes();
  }
  EXPECT_EQ(ds.imgs().size(), samples.size());
}

TEST(FormatsImageFolder, TransformsAndCustomLoader) {
  const std::string root = formats_dir() + "/folder";
  std::atomic<int> loads{0};
  ImageFolder ds(root, {.transform = [](const Tensor& t) { return t.to(kFloat32) / 255; },
                        .target_transform = [](int64_t t) { return t + 100; },
                        .loader =
                            [&](const std::string& path) {
                              ++loads;
                              return io::read_image(path, io::ImageReadMode::GRAY);
                            }});
  auto [image, target] = ds.get(1);
  EXPECT_EQ(loads.load(), 1);
  EXPECT_EQ(target, ds.targets()[1] + 100);
  EXPECT_EQ(image.dtype(), kFloat32);
  EXPECT_EQ(image.size(0), 1);
}

TEST(FormatsImageFolder, IsValidFileReplacesExtensions) {
  const std::string root = formats_dir() + "/folder";
  // Only PNG files whose name starts with a letter before 'w'.
  ImageFolder ds(root, {.is_valid_file = [](const std::string& path) {
                   const std::string name = path.substr(path.rfind('/') + 1);
                   return has_file_allowed_extension(path, {".png"}) && name[0] < 'w';
                 }});
  // Zebra/only.png, cat/b.png, dog/sub-b/v.PNG.
  ASSERT_EQ(ds.size(), 3);
  EXPECT_EQ(ds.samples()[0].first, root + "/Zebra/only.png");
  EXPECT_EQ(ds.samples()[1].first, root + "/cat/b.png");
  EXPECT_EQ(ds.samples()[2].first, root + "/dog/sub-b/v.PNG");
  EXPECT_TRUE(ds.extensions().empty());
}

TEST(FormatsDatasetFolder, ExtensionsAndOrder) {
  TempDir tmp;
  for (const char* rel : {"b/2.npy", "b/10.npy", "b/x/1.NPY", "b/x.y/0.npy", "b/x-y/0.npy",
                          "b/x/deep/2.npy", "a/q.npy", "a/skip.txt", "c d/e.npy"})
    write_bytes(tmp / rel, rel);
  DatasetFolder ds(tmp.path(), {.loader =
                                    [](const std::string& path) {
                                      return full({1}, static_cast<int64_t>(path.size()));
                                    },
                                .extensions = {".npy"}});
  std::vector<std::string> classes = {"a", "b", "c d"};
  EXPECT_EQ(ds.classes(), classes);
  // Within class b the folders come in the order of their paths, as
  // torchvision's sorted(os.walk(...)): "b", "b/x", "b/x-y", "b/x.y",
  // "b/x/deep" ('/' 0x2F sorts after '-' and '.'); files sort as strings
  // ("10" < "2"). This list is what torchvision 0.14 returns for this tree.
  std::vector<std::string> rel;
  for (const auto& s : ds.samples()) rel.push_back(s.first.substr(tmp.path().string().size() + 1));
  std::vector<std::string> expected = {"a/q.npy",     "b/10.npy",    "b/2.npy",        "b/x/1.NPY",
                                       "b/x-y/0.npy", "b/x.y/0.npy", "b/x/deep/2.npy", "c d/e.npy"};
  EXPECT_EQ(rel, expected);
  EXPECT_EQ(ds.get(0).first.item<int64_t>(), static_cast<int64_t>(ds.samples()[0].first.size()));
}

TEST(FormatsDatasetFolder, FollowsLinksWithoutLooping) {
  TempDir tmp;
  write_bytes(tmp / "data/cls/a.png", "x");
  write_bytes(tmp / "elsewhere/b.png", "x");
  ASSERT_EQ(::symlink((tmp / "elsewhere").c_str(), (tmp / "data/cls/linked").c_str()), 0);
  // A link back to an ancestor would loop forever without the cycle check.
  ASSERT_EQ(::symlink((tmp / "data/cls").c_str(), (tmp / "data/cls/loop").c_str()), 0);
  // A link to a class folder is a class; a broken link is a file.
  ASSERT_EQ(::symlink((tmp / "elsewhere").c_str(), (tmp / "data/other").c_str()), 0);
  ASSERT_EQ(::symlink((tmp / "missing.png").c_str(), (tmp / "data/other2.png").c_str()), 0);
  DatasetFolder ds(tmp / "data", {.loader = [](const std::string&) { return zeros({1}); },
                                  .extensions = {".png"}});
  EXPECT_EQ(ds.classes(), (std::vector<std::string>{"cls", "other"}));
  std::vector<std::string> rel;
  for (const auto& s : ds.samples()) rel.push_back(s.first.substr(tmp.path().string().size() + 1));
  EXPECT_EQ(rel, (std::vector<std::string>{"data/cls/a.png", "data/cls/linked/b.png",
                                           "data/other/b.png"}));
}

TEST(FormatsDatasetFolder, ConcurrentGet) {
  ImageFolder ds(formats_dir() + "/folder");
  std::vector<Tensor> reference;
  for (int64_t i = 0; i < ds.size(); ++i) reference.push_back(ds.get(i).first);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep)
        for (int64_t i = 0; i < ds.size(); ++i) {
          const int64_t k = (i + t + rep) % ds.size();
          if (!tensors_equal(ds.get(k).first, reference[static_cast<size_t>(k)])) ++mismatches;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(FormatsDatasetFolder, Errors) {
  TempDir tmp;
  auto loader = [](const std::string&) { return zeros({1}); };
  // Missing root: the layout is named.
  EXPECT_EMBER_ERROR(ImageFolder(tmp / "nope"), "ImageFolder", "nope", "does not exist",
                     "<class>/<files>");
  // No class folder.
  write_bytes(tmp / "flat/a.png", "x");
  EXPECT_EMBER_ERROR(ImageFolder(tmp / "flat"), "ImageFolder", "couldn't find any class folder",
                     "flat");
  // A class without valid files: the classes and extensions are named.
  write_bytes(tmp / "tree/good/a.png", "x");
  write_bytes(tmp / "tree/empty1/a.txt", "x");
  std::filesystem::create_directories(tmp / "tree/empty0");
  EXPECT_EMBER_ERROR(ImageFolder(tmp / "tree"), "ImageFolder", "found no valid file",
                     "empty0, empty1", "Supported extensions are: .jpg, .jpeg, .png");
  EXPECT_EMBER_ERROR(
      DatasetFolder(tmp / "tree", {.loader = loader,
                                   .extensions = {".png"},
                                   .is_valid_file = [](const std::string&) { return true; }}),
      "DatasetFolder", "exactly one of extensions and is_valid_file", "both");
  EXPECT_EMBER_ERROR(DatasetFolder(tmp / "tree", {.loader = loader}), "neither");
  EXPECT_EMBER_ERROR(DatasetFolder(tmp / "tree", {.extensions = {".png"}}), "DatasetFolder",
                     "a loader is required");
  // Index out of range.
  ImageFolder ok(formats_dir() + "/folder");
  EXPECT_EMBER_ERROR(ok.get(ok.size()), "ImageFolder", "index 8 is out of range", "8 samples");
  EXPECT_EMBER_ERROR(ok.get(-1), "index -1");
  // A file that is not an image: the loader names it.
  write_bytes(tmp / "bad/c/broken.png", "not a png");
  ImageFolder bad(tmp / "bad");
  EXPECT_EMBER_ERROR(bad.get(0), "default_loader", "broken.png");
}

TEST(FormatsDatasetFolder, FindClassesAndMakeDataset) {
  const std::string root = formats_dir() + "/folder";
  FolderClasses found = find_classes(root);
  EXPECT_EQ(found.classes, (std::vector<std::string>{"Zebra", "cat", "dog"}));
  // A subset of classes with custom indices, as torchvision's make_dataset.
  auto samples = make_dataset(root, {{"cat", 7}}, img_extensions());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0], (std::pair<std::string, int64_t>{root + "/cat/a.JPG", 7}));
  EXPECT_EMBER_ERROR(make_dataset(root, {}, img_extensions()),
                     "class_to_idx must have at least one entry");
  EXPECT_TRUE(has_file_allowed_extension("X/Y.JPEG", img_extensions()));
  EXPECT_FALSE(has_file_allowed_extension("x.jpg.txt", img_extensions()));
}

}  // namespace ember::datasets

}  // namespace formats_folder_test
