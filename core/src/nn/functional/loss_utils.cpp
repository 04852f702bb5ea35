// Helpers shared by the nn::functional losses.
#include "nn/functional/loss_utils.h"

#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::nn::functional::detail {

const char* reduction_name(Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return "none";
    case Reduction::Mean: return "mean";
    case Reduction::Sum: return "sum";
    case Reduction::BatchMean: return "batchmean";
  }
  return "?";
}

Tensor apply_reduction(const Tensor& loss, Reduction reduction, const char* op) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return loss.mean();
    case Reduction::Sum: return loss.sum();
    case Reduction::BatchMean: break;
  }
  EMBER_FAIL(op, ": reduction 'batchmean' is only supported by kl_div; use none, mean or sum");
}

void check_defined(const Tensor& t, const char* what, const char* op) {
  EMBER_CHECK(t.defined(), op, ": ", what, " tensor is undefined");
}

void check_same_size(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(input.sizes() == target.sizes(), op, ": Using a target size (", target.sizes(),
              ") that is different to the input size (", input.sizes(), ") is not supported. "
              "Please ensure they have the same size.");
}

void check_class_target(const Tensor& target, const char* op) {
  EMBER_CHECK(is_integral(target.dtype(), /*include_bool=*/false), op,
              ": expected a target of class indices (an integral dtype), got ", target.dtype());
}

void check_target_range(const Tensor& target, int64_t lo, int64_t hi, const char* op,
                        std::optional<int64_t> except) {
  const Tensor t = target.to(kInt64).cpu().contiguous();
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (except && p[i] == *except) continue;
    EMBER_CHECK(p[i] >= lo && p[i] < hi, op, ": target ", p[i], " is out of bounds (expected a class index in [",
                lo, ", ", hi - 1, "]", except ? " or ignore_index " + std::to_string(*except) : std::string(),
                ")");
  }
}

void check_class_weight(const Tensor& weight, int64_t classes, const char* op) {
  if (!weight.defined()) return;
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == classes, op,
              ": weight tensor should be defined either for all ", classes,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
}

Tensor class_weight_view(const Tensor& weight, int64_t dims, int64_t class_dim) {
  DimVector shape(static_cast<size_t>(dims), 1);
  shape[static_cast<size_t>(class_dim)] = weight.numel();
  return weight.reshape(shape);
}

}  // namespace ember::nn::functional::detail
