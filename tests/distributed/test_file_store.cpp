// FileStore: semantics, several processes on one file, cleanup by the last user.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <ember/distributed/file_store.h>

#include "multiprocess.h"
#include "store_testing.h"
#include "temp_dir.h"

namespace {

using namespace std::chrono_literals;
using ember::distributed::FileStore;
using ember::testing::env_string;
using ember::testing::Ranks;
using ember::testing::TempDir;

std::map<std::string, std::string> file_env(const std::string& path) { return {{"STORE_FILE", path}}; }

TEST(FileStore, SemanticsThroughTwoObjectsOnOneFile) {
  TempDir dir("ember_filestore");
  FileStore store(dir / "store", 10s);
  FileStore other(dir / "store", 10s);
  ember::testing::check_store_semantics(store, other);
}

TEST(FileStore, LastUserRemovesTheFile) {
  TempDir dir("ember_filestore");
  const std::string path = dir / "store";
  {
    auto a = std::make_unique<FileStore>(path);
    a->set("k", "v");
    {
      FileStore b(path);
      EXPECT_EQ(b.get("k"), "v");
    }
    EXPECT_TRUE(std::filesystem::exists(path));  // a still uses it
    EXPECT_EQ(a->get("k"), "v");
    a.reset();
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  // A new store on the path starts empty.
  FileStore fresh(path);
  EXPECT_EQ(fresh.num_keys(), 0);
  EXPECT_FALSE(fresh.check({"k"}));
}

TEST(FileStore, CorruptFileIsRejected) {
  TempDir dir("ember_filestore");
  const std::string path = dir / "store";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("\x07garbage", f);
    std::fclose(f);
  }
  const std::string error = ember::testing::store_error_of([&] { FileStore store(path); });
  EXPECT_NE(error.find("is corrupt"), std::string::npos) << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST(FileStore, UnopenablePathNamesIt) {
  const std::string error =
      ember::testing::store_error_of([] { FileStore store("/nonexistent_dir_for_ember/store"); });
  EXPECT_NE(error.find("cannot open /nonexistent_dir_for_ember/store"), std::string::npos) << error;
}

EMBER_DIST_WORKER(file_store_add_worker) {
  FileStore store(env_string("STORE_FILE"), 20s);
  for (int i = 0; i < 50; ++i) store.add("sum", rank + 1);
  const std::string winner = store.compare_set("leader", "", std::to_string(rank));
  store.set("saw/" + std::to_string(rank), winner);
  // Blocks until the test sets it, so that every rank is still a user.
  store.wait({"release"});
}

TEST(FileStore, FourProcessesShareOneFileAndTheLastOneCleansUp) {
  TempDir dir("ember_filestore");
  const std::string path = dir / "store";
  Ranks ranks("file_store_add_worker", 4, file_env(path));
  {
    FileStore store(path, 20s);
    store.wait({"saw/0", "saw/1", "saw/2", "saw/3"});
    EXPECT_EQ(store.add("sum", 0), 50 * (1 + 2 + 3 + 4));
    const std::string leader = store.get("leader");
    for (int r = 0; r < 4; ++r) EXPECT_EQ(store.get("saw/" + std::to_string(r)), leader);
    store.set("release", "");
    ASSERT_TRUE(ranks.all_succeed(30s));
    EXPECT_TRUE(std::filesystem::exists(path));  // this test's store is still a user
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

EMBER_DIST_WORKER(file_store_late_setter_worker) {
  std::this_thread::sleep_for(150ms);
  FileStore store(env_string("STORE_FILE"), 20s);
  store.set("late", "value from rank " + std::to_string(rank));
}

TEST(FileStore, WaitsForAKeyAnotherProcessSetsLater) {
  TempDir dir("ember_filestore");
  FileStore store(dir / "store", 20s);
  Ranks ranks("file_store_late_setter_worker", 1, file_env(dir / "store"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(store.get("late"), "value from rank 0");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  ASSERT_TRUE(ranks.all_succeed(30s));
}

}  // namespace
