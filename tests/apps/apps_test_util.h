#pragma once
// Shared by the apps tests: a generated shapes dataset in a temporary folder
// (made once per test process), fresh output folders, and running a program
// with its standard output and error captured.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "../temp_dir.h"  // tests/temp_dir.h
#include "common/shapes_data.h"
#include "train/trainer.h"

namespace ember::apps::testing {

// The process's scratch folder, removed at exit (ctest runs one process per
// test, and the shapes data alone is hundreds of MB: folders that outlived
// their process once filled the disk).
inline std::filesystem::path temp_root() {
  static const ember::testing::TempDir root("ember_apps_tests");
  return root.path();
}

// A new empty folder under the temporary root.
inline std::string fresh_dir(const std::string& name) {
  const auto p = temp_root() / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

// The small shapes dataset the tests train on: 32x32 images, `per_class`
// training images per class.
inline std::string shapes_data(int64_t per_class) {
  const auto root = temp_root() / ("shapes_" + std::to_string(per_class));
  if (!std::filesystem::exists(root / "train"))
    write_shapes_dataset(root.string(), {.train_per_class = per_class, .val_per_class = 25, .test_per_class = 3,
                                         .image_size = 32, .seed = 7});
  return root.string();
}

// The configuration of the tests' training runs: ResNet-18 on 32x32 shapes,
// AdamW (the fastest start of the optimizers tried on short runs), 2 workers.
inline TrainConfig small_run(const std::string& data, const std::string& output) {
  TrainConfig c;
  c.data = data;
  c.model = "resnet18";
  c.image_size = 32;
  c.batch_size = 32;
  c.optimizer = "adamw";
  c.lr = 2e-3;
  c.weight_decay = 0.05;
  c.workers = 2;
  c.output = output;
  c.progress = false;
  return c;
}

// The short run, trained once per test process: 4 epochs over 1,800 images
// (224 steps).
struct ShortRun {
  TrainConfig config;
  TrainResult result;
};
inline const ShortRun& short_run() {
  static const ShortRun run = [] {
    ShortRun r;
    r.config = small_run(shapes_data(300), fresh_dir("short_run"));
    r.config.epochs = 4;
    r.result = train(r.config);
    return r;
  }();
  return run;
}

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `command` (a shell command line) with stdout and stderr captured.
inline RunResult run(const std::string& command) {
  static int counter = 0;
  const auto base = temp_root() / ("run" + std::to_string(counter++));
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  const int status = std::system((command + " >" + out + " 2>" + err).c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace ember::apps::testing
