#include "predict.h"

#include <cstdio>
#include <istream>
#include <ostream>

#include <ember/autograd/grad_mode.h>
#include <ember/nn/functional/activation.h>
#include <ember/ops/factories.h>

#include "classify_task.h"
#include "lm_task.h"
#include "text_checkpoint.h"

namespace ember::apps::text_app {

int64_t predict_lines(const std::string& checkpoint_path, std::istream& in, std::ostream& out) {
  const TextCheckpoint ckpt = load_text_checkpoint(checkpoint_path);
  const TextModel model = create_model(ckpt.spec);
  model.module().load_state_dict(ckpt.model_state, /*strict=*/true);
  model.module().eval();
  NoGradGuard no_grad;
  int64_t count = 0;
  char number[32];
  for (std::string line; std::getline(in, line); ++count) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (ckpt.state.task == "lm") {
      std::snprintf(number, sizeof(number), "%.2f", line_perplexity(model, ckpt.pipeline, line));
      out << number << '\t' << line << '\n';
      continue;
    }
    std::vector<int64_t> ids = ckpt.pipeline.ids(line);
    if (model.classifier && static_cast<int64_t>(ids.size()) > model.spec.max_len)
      ids.resize(static_cast<size_t>(model.spec.max_len));
    if (ids.empty()) ids.push_back(0);  // <unk>, as in training
    const Tensor probs =
        nn::functional::softmax(classifier_logits(model, make_classifier_batch(model.spec, {&ids})), 1);
    const int64_t best = probs.argmax(1).item<int64_t>();
    std::snprintf(number, sizeof(number), "%.4f", probs.select(0, 0).select(0, best).item<double>());
    out << ckpt.state.classes[static_cast<size_t>(best)] << '\t' << number << '\t' << line << '\n';
  }
  out.flush();
  return count;
}

}  // namespace ember::apps::text_app
