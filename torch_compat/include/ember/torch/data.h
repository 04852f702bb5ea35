#pragma once
// <ember/torch.h>, part 6: torch::data, libtorch's data API (datasets with
// get/size and .map(), transforms, samplers, make_data_loader).
#include "ember/torch/data/chunk.h"
#include "ember/torch/data/datasets.h"
#include "ember/torch/data/example.h"
#include "ember/torch/data/loader.h"
#include "ember/torch/data/samplers.h"
#include "ember/torch/data/samplers_distributed.h"
#include "ember/torch/data/stateful.h"
#include "ember/torch/data/transforms.h"

namespace torch::data {
// As libtorch: `struct MyDataset : torch::data::Dataset<MyDataset> {...}`.
using datasets::BatchDataset;
using datasets::Dataset;
using datasets::StatefulDataset;
}  // namespace torch::data
