// Loads a COCO instances file the two ways Ember can and prints the time and
// the process's peak resident memory (see docs/datasets.md, "COCO's JSON"):
//   coco_json_load FILE pull       CocoDetection (the pull reader, segmentation skipped)
//   coco_json_load FILE pull-seg   the same, keeping each segmentation's JSON text
//   coco_json_load FILE dom        the file into a string, then serialize::json::parse (an IValue tree)
// Run one mode per process, so that the peak memory is that mode's.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <ember/datasets/coco.h>
#include <ember/serialize/json.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: coco_json_load FILE pull|pull-seg|dom\n";
    return 2;
  }
  const std::string file = argv[1], mode = argv[2];
  const auto t0 = std::chrono::steady_clock::now();
  size_t images = 0, annotations = 0;
  if (mode == "pull" || mode == "pull-seg") {
    ember::datasets::CocoDetection ds("/", file, {.keep_segmentation = mode == "pull-seg"});
    images = ds.images().size();
    annotations = ds.annotations().size();
  } else if (mode == "dom") {
    std::ifstream f(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto doc = ember::serialize::json::parse(text, file);
    images = doc.at("images").to_list().size();
    annotations = doc.at("annotations").to_list().size();
  } else {
    std::cerr << "unknown mode " << mode << "\n";
    return 2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%s: %zu images, %zu annotations, %.2f s, peak RSS %.0f MB\n", mode.c_str(), images,
              annotations, seconds, ru.ru_maxrss / 1024.0);
  return 0;
}
