// Built against the installed Ember, linking Ember::datasets and Ember::models
// with --as-needed, and run without LD_LIBRARY_PATH: the installed libraries
// must find each other (libember_datasets needs libember_io, which this
// program does not name) through their own RUNPATH. A DataLoader over a
// TensorDataset feeds a ResNet-18 forward.
#include <ember/datasets/datasets.h>
#include <ember/ember.h>
#include <ember/models/models.h>

#include <iostream>

int main() {
  namespace data = ember::datasets;
  auto dataset = std::make_shared<data::TensorDataset>(
      std::vector<ember::Tensor>{ember::randn({4, 3, 32, 32}), ember::arange(4, ember::kInt64)});
  data::DataLoader loader(dataset, {.batch_size = 2, .num_workers = 1});
  auto model = ember::models::resnet18({.num_classes = 3});
  model->eval();
  int64_t batches = 0;
  for (auto& batch : loader) {
    ember::Tensor logits = model(batch[0]);
    if (logits.size(0) != 2 || logits.size(1) != 3) return 1;
    ++batches;
  }
  std::cout << "batches: " << batches << "\n";
  return batches == 2 ? 0 : 1;
}
