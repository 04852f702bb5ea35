#pragma once
// Helpers of the text dataset tests: writing files and
// reading the `<label> <byte length>\n<bytes>\n` expected-record files that
// scripts/fixtures/text_textdata.py writes.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/datasets/iterable_dataset.h>

#include "temp_dir.h"

namespace textdata_test_util {

inline std::filesystem::path fixture_dir() { return std::filesystem::path(EMBER_TEST_DATA_DIR) / "text" / "text_textdata"; }

// TempDir("ember_textdata"): a folder removed with everything in it.
using ember::testing::TempDir;

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::pair<int64_t, std::string>> read_expected(const std::string& name) {
  std::ifstream in(fixture_dir() / name, std::ios::binary);
  EMBER_CHECK(in, "missing fixture ", name, ": run /usr/bin/python3 scripts/gen_fixtures.py text_textdata");
  std::vector<std::pair<int64_t, std::string>> out;
  int64_t label = 0;
  size_t length = 0;
  while (in >> label >> length) {
    in.get();  // "\n"
    std::string text(length, '\0');
    in.read(text.data(), static_cast<std::streamsize>(length));
    in.get();  // "\n"
    out.emplace_back(label, std::move(text));
  }
  return out;
}

// Every sample of one pass, as worker `id` of `workers`.
template <class Sample>
std::vector<Sample> drain(ember::datasets::IterableDataset<Sample>& d, int64_t id = 0, int64_t workers = 1) {
  auto it = d.iter(ember::datasets::WorkerInfo{id, workers, 0});
  std::vector<Sample> out;
  while (auto s = it->next()) out.push_back(std::move(*s));
  return out;
}

}  // namespace textdata_test_util
