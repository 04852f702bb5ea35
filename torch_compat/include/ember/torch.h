#pragma once
// libtorch's C++ frontend spelling over Ember: a program written for
// `#include <torch/torch.h>` compiles with this include instead and links the
// Ember targets it uses (Ember::torch_compat brings them all). Namespace
// torch maps onto Ember (docs/torch_compat.md has the table, what is not
// covered and how the two differ); Ember's own API is unchanged.
//
//   #include <ember/torch.h>
//   struct Net : torch::nn::Module { ... };                // as in libtorch
//   torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
//
// As libtorch's umbrella, it brings the whole library: Ember's core (tensors,
// autograd, nn, optim, serialization), datasets and models.
#include "ember/datasets/datasets.h"
#include "ember/ember.h"
#include "ember/models/models.h"
#include "ember/torch/arg.h"
#include "ember/torch/data.h"
#include "ember/torch/functional.h"
#include "ember/torch/nn.h"
#include "ember/torch/nn_layer_options.h"
#include "ember/torch/nn_more_options.h"
#include "ember/torch/nn_print.h"
#include "ember/torch/optim.h"
#include "ember/torch/serialize.h"
#include "ember/torch/data/samplers_serialize.h"
#include "ember/torch/data/stateful_serialize.h"
#include "ember/torch/tensor.h"
