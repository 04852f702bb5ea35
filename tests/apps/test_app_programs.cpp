// The ember-train and ember-classify programs as a user runs them: --help,
// a training run then classification of held-out files, and bad
// configurations giving one error line and a non-zero exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "apps_test_util.h"

using namespace ember::apps::testing;
namespace fs = std::filesystem;

namespace app_programs_test {

const std::string kTrain = EMBER_TRAIN_BIN;
const std::string kClassify = EMBER_CLASSIFY_BIN;

// One error line on stderr that contains `what`.
void expect_one_error_line(const RunResult& r, const std::string& what) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

// A checkpoint made once per test process by the program itself: 2 epochs
// over 120 images (a few seconds; its accuracy is TrainApp's subject, not
// these tests').
const std::string& trained_checkpoint() {
  static const std::string path = [] {
    const std::string out = fresh_dir("program_checkpoint");
    const RunResult r = run(kTrain + " --data " + shapes_data(20) +
                            " --image-size 32 --epochs 2 --batch-size 16 --no-progress --output " + out);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return out + "/best.safetensors";
  }();
  return path;
}

TEST(AppPrograms, TrainRunPrintsProgressAndWritesFiles) {
  const std::string out = fresh_dir("program_run");
  const RunResult r = run(kTrain + " --data " + shapes_data(20) +
                          " --image-size 32 --epochs 2 --batch-size 16 --no-progress --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {"data: ImageFolder", "model: resnet18", "epoch 1/2: train loss", "epoch 2/2: train loss",
                           "done: 2/2 epochs", "files: "})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  for (const char* file : {"checkpoint.safetensors", "best.safetensors", "metrics.json"})
    EXPECT_TRUE(fs::exists(fs::path(out) / file)) << file;
}

TEST(AppPrograms, HelpListsTheOptions) {
  const RunResult t = run(kTrain + " --help");
  EXPECT_EQ(t.exit_code, 0);
  for (const char* flag : {"--data", "--model", "--epochs", "--resume", "--optimizer", "--scheduler", "--workers"})
    EXPECT_NE(t.out.find(flag), std::string::npos) << flag;
  const RunResult c = run(kClassify + " --help");
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_NE(c.out.find("--checkpoint"), std::string::npos);
  EXPECT_NE(c.out.find("--topk"), std::string::npos);
}

TEST(AppPrograms, ClassifyHeldOutFiles) {
  const std::string ckpt = trained_checkpoint();
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(shapes_data(20)) / "test"))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 18u);
  std::string command = kClassify + " --checkpoint " + ckpt + " --topk 2";
  for (const auto& f : files) command += " " + f;
  const RunResult r = run(command);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One line per file: "<path>: <class> <p>%, <class> <p>%", classes among the
  // six, probabilities in decreasing order.
  const std::vector<std::string> classes = {"circle", "cross", "ring", "square", "star", "triangle"};
  std::istringstream lines(r.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    const std::string path = files[static_cast<size_t>(count++)];
    ASSERT_EQ(line.rfind(path + ": ", 0), 0u) << line;
    std::istringstream fields(line.substr(path.size() + 2));
    std::string first, second;
    double p1 = 0, p2 = 0;
    char percent = 0, comma = 0;
    fields >> first >> p1 >> percent >> comma >> second >> p2;
    EXPECT_NE(std::find(classes.begin(), classes.end(), first), classes.end()) << line;
    EXPECT_NE(std::find(classes.begin(), classes.end(), second), classes.end()) << line;
    EXPECT_NE(first, second) << line;
    EXPECT_GE(p1, p2) << line;
    EXPECT_LE(p1 + p2, 100.05) << line;
  }
  EXPECT_EQ(count, 18);
}

TEST(AppPrograms, BadConfigurationsGiveOneErrorLine) {
  const std::string out = fresh_dir("bad_programs");
  expect_one_error_line(run(kTrain + " --data /nonexistent/root --output " + out), "does not exist");
  expect_one_error_line(run(kTrain + " --data " + shapes_data(20) + " --model resnet9000 --output " + out),
                        "unknown model 'resnet9000'");
  const RunResult flag = run(kTrain + " --epochz 3");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("unknown option '--epochz'"), std::string::npos) << flag.err;
  expect_one_error_line(run(kTrain + " --epochs many"), "not a valid N");

  // A checkpoint for other classes (2 of the 6 shape folders) cannot be resumed.
  const std::string two = fresh_dir("two_classes");
  for (const char* cls : {"circle", "square"})
    fs::copy(fs::path(shapes_data(20)) / "train" / cls, fs::path(two) / cls, fs::copy_options::recursive);
  expect_one_error_line(run(kTrain + " --data " + two + " --image-size 32 --epochs 2 --output " + out + " --resume " +
                            trained_checkpoint()),
                        "is for resnet18 with 6 classes");

  // An unreadable image, a file that is not a checkpoint, a missing checkpoint.
  const std::string bogus = out + "/not_an_image.jpg";
  std::ofstream(bogus) << "hello";
  expect_one_error_line(run(kClassify + " --checkpoint " + trained_checkpoint() + " " + bogus), "cannot read image");
  expect_one_error_line(run(kClassify + " --checkpoint " + bogus + " " + bogus), "not_an_image.jpg");
  expect_one_error_line(run(kClassify + " --checkpoint " + out + "/missing.safetensors " + bogus), "missing.safetensors");
  EXPECT_EQ(run(kClassify + " --checkpoint " + trained_checkpoint()).exit_code, 2);  // no images
}

}  // namespace app_programs_test
