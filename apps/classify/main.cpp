// ember-classify: loads an ember-train checkpoint (the model and its saved
// preprocessing; float or the int8 one of --quantize) and prints the top-k
// classes of each image.
//
//   ember-classify --checkpoint out/best.safetensors photo.jpg more/*.png
#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <ember/autograd/grad_mode.h>
#include <ember/core/parallel.h>
#include <ember/io/image.h>
#include <ember/models/classifier.h>
#include <ember/nn/functional/activation.h>
#include <ember/ops/shape.h>
#include <ember/ops/sort.h>

#include "common/checkpoint.h"
#include "common/flags.h"
#include "common/quantized_checkpoint.h"

namespace {

using namespace ember;

constexpr int64_t kBatch = 32;

// model: float or int8 (both take float images and return float logits).
void classify(const apps::Checkpoint& ckpt, const std::function<Tensor(const Tensor&)>& model,
              const std::vector<std::string>& paths, int64_t topk) {
  for (size_t start = 0; start < paths.size(); start += kBatch) {
    const size_t end = std::min(paths.size(), start + static_cast<size_t>(kBatch));
    std::vector<Tensor> inputs;
    for (size_t i = start; i < end; ++i) {
      Tensor image;
      try {
        image = io::read_image(paths[i], io::ImageReadMode::RGB);
      } catch (const std::exception& e) {
        EMBER_FAIL("cannot read image '", paths[i], "': ", e.what());
      }
      inputs.push_back((*ckpt.eval_transform)(image));
    }
    const Tensor probs = nn::functional::softmax(model(stack(inputs)), 1);
    const auto [values, indices] = probs.topk(topk, 1);
    for (size_t i = start; i < end; ++i) {
      std::printf("%s:", paths[i].c_str());
      for (int64_t k = 0; k < topk; ++k) {
        const int64_t cls = indices[static_cast<int64_t>(i - start)][k].item<int64_t>();
        std::printf("%s %s %.1f%%", k ? "," : "", ckpt.info.classes[static_cast<size_t>(cls)].c_str(),
                    100 * values[static_cast<int64_t>(i - start)][k].item<double>());
      }
      std::printf("\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string checkpoint;
  int64_t topk = 3, threads = 0;
  apps::Flags flags("ember-classify",
                    "Prints the top-k classes of each image (JPEG or PNG) with the model and preprocessing\n"
                    "saved in an ember-train checkpoint.",
                    "IMAGE...");
  flags.add("--checkpoint", &checkpoint, "FILE", "an ember-train checkpoint (checkpoint.safetensors, best.safetensors, quantized.safetensors)");
  flags.add("--topk", &topk, "K", "classes to print per image");
  flags.add("--threads", &threads, "N", "intra-op threads (0: all cores)");
  const std::vector<std::string> images = flags.parse(argc, argv);
  if (checkpoint.empty()) apps::fail("ember-classify", "no --checkpoint given (see --help)", 2);
  if (images.empty()) apps::fail("ember-classify", "no images given (see --help)", 2);
  try {
    if (threads > 0) set_num_threads(static_cast<int>(threads));
    const apps::Checkpoint ckpt = apps::load_checkpoint(checkpoint);
    EMBER_CHECK(topk >= 1 && topk <= ckpt.info.num_classes, "--topk must be in [1, ", ckpt.info.num_classes,
                "], got ", topk);
    NoGradGuard no_grad;
    if (apps::is_quantized(ckpt)) {
      // ember-train --quantize's int8 checkpoint: the converted quantizable model.
      const auto model = apps::load_quantized_model(ckpt, checkpoint);
      classify(ckpt, [&](const Tensor& x) { return model->forward(x); }, images, topk);
    } else {
      models::ImageClassifier model = models::create(ckpt.info.model, {.num_classes = ckpt.info.num_classes});
      model->load_state_dict(ckpt.model_state, /*strict=*/true);
      model->eval();
      classify(ckpt, [&](const Tensor& x) { return model->forward(x); }, images, topk);
    }
  } catch (const std::exception& e) {
    apps::fail("ember-classify", e.what());
  }
  return 0;
}
