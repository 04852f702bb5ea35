// Ops on empty tensors against PyTorch 1.13: the same errors, shapes and
// values. Expected results were printed by Debian's python3-torch 1.13 running
// the same calls (E = torch.zeros(0), E03 = torch.zeros(0, 3), E30 =
// torch.zeros(3, 0), E0344 = torch.zeros(0, 3, 4, 4), L0 = torch.zeros(0,
// dtype=torch.long); e.g. E.amax() raises, E.mean() is nan, E.prod() is 1).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include <ember/ember.h>

using namespace ember;
namespace F = ember::nn::functional;

namespace empty_inputs_test {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNoValue = 0;  // the result has no elements

struct EmptyCase {
  const char* name;
  std::function<Tensor()> fn;
  std::optional<DimVector> shape;  // nullopt: PyTorch raises
  double first;                    // the first element, when there is one
};

TEST(EmptyInputs, MatchPytorch) {
  const Tensor E = zeros({0}), E03 = zeros({0, 3}), E30 = zeros({3, 0}), E0344 = zeros({0, 3, 4, 4});
  const Tensor L0 = zeros({0}, kInt64);
  const std::vector<EmptyCase> cases = {
      {"amax_all", [&] { return E.amax(); }, std::nullopt, 0},
      {"max_dim0_03", [&] { return E03.max(0).first; }, std::nullopt, 0},
      {"max_dim1_03", [&] { return E03.max(1).first; }, DimVector{0}, kNoValue},
      {"argmax_all", [&] { return E.argmax(); }, std::nullopt, 0},
      {"median_all", [&] { return E.median(); }, DimVector{}, kNan},
      {"median_dim1_03", [&] { return E03.median(1).first; }, DimVector{0}, kNoValue},
      {"mode_dim1_03", [&] { return E03.mode(1).first; }, DimVector{0}, kNoValue},
      {"kthvalue_1_03", [&] { return E03.kthvalue(1, 1).first; }, DimVector{0}, kNoValue},
      {"var_all", [&] { return E.var(); }, DimVector{}, kNan},
      {"std_dim0_03", [&] { return E03.std({0}); }, DimVector{3}, kNan},
      {"prod_all", [&] { return E.prod(); }, DimVector{}, 1.0},
      {"logsumexp_all", [&] { return logsumexp(E, {0}); }, DimVector{}, -kInf},
      {"logsumexp_30", [&] { return logsumexp(E30, {1}); }, DimVector{3}, -kInf},
      {"softmax_30", [&] { return F::softmax(E30, 1); }, DimVector{3, 0}, kNoValue},
      {"log_softmax_03", [&] { return F::log_softmax(E03, 1); }, DimVector{0, 3}, kNoValue},
      {"cumsum", [&] { return E.cumsum(0); }, DimVector{0}, kNoValue},
      {"cumprod_30", [&] { return E30.cumprod(1); }, DimVector{3, 0}, kNoValue},
      {"logcumsumexp", [&] { return E.logcumsumexp(0); }, DimVector{0}, kNoValue},
      {"cummax", [&] { return E.cummax(0).first; }, DimVector{0}, kNoValue},
      {"sort", [&] { return std::get<0>(E.sort()); }, DimVector{0}, kNoValue},
      {"topk0", [&] { return std::get<0>(E.topk(0)); }, DimVector{0}, kNoValue},
      {"unique", [&] { return std::get<0>(unique(E)); }, DimVector{0}, kNoValue},
      {"norm", [&] { return E.norm(); }, DimVector{}, 0.0},
      {"mean", [&] { return E.mean(); }, DimVector{}, kNan},
      {"all", [&] { return E.all(); }, DimVector{}, 1},
      {"any", [&] { return E.any(); }, DimVector{}, 0},
      {"count_nonzero", [&] { return count_nonzero(E); }, DimVector{}, 0},
      {"var_30_dim1", [&] { return E30.var({1}); }, DimVector{3}, kNan},
      {"layer_norm", [&] { return F::layer_norm(E03, {3}); }, DimVector{0, 3}, kNoValue},
      {"group_norm", [&] { return F::group_norm(E0344, 3); }, DimVector{0, 3, 4, 4}, kNoValue},
      {"instance_norm", [&] { return F::instance_norm(E0344); }, DimVector{0, 3, 4, 4}, kNoValue},
      {"conv2d", [&] { return F::conv2d(E0344, randn({2, 3, 3, 3})); }, DimVector{0, 2, 2, 2}, kNoValue},
      {"linear", [&] { return F::linear(E03, randn({2, 3})); }, DimVector{0, 2}, kNoValue},
      {"linear_in0", [&] { return F::linear(zeros({2, 0}), randn({4, 0})); }, DimVector{2, 4}, 0.0},
      {"matmul", [&] { return E03.matmul(randn({3, 2})); }, DimVector{0, 2}, kNoValue},
      {"mm_k0", [&] { return E30.t().matmul(E30); }, DimVector{0, 0}, kNoValue},
      {"embedding_empty_idx", [&] { return F::embedding(L0, randn({4, 2})); }, DimVector{0, 2}, kNoValue},
      {"max_pool2d", [&] { return F::max_pool2d(E0344, 2); }, DimVector{0, 3, 2, 2}, kNoValue},
      {"avg_pool2d", [&] { return F::avg_pool2d(E0344, 2); }, DimVector{0, 3, 2, 2}, kNoValue},
      {"adaptive_avg", [&] { return F::adaptive_avg_pool2d(E0344, 2); }, DimVector{0, 3, 2, 2}, kNoValue},
      {"interp", [&] { return F::interpolate(E0344, {.size = {8, 8}}); }, DimVector{0, 3, 8, 8}, kNoValue},
      {"interp_bilinear", [&] { return F::interpolate(E0344, {.size = {8, 8}, .mode = "bilinear"}); },
       DimVector{0, 3, 8, 8}, kNoValue},
      {"pad_reflect", [&] { return pad(E0344, {1, 1, 1, 1}, "reflect"); }, DimVector{0, 3, 6, 6}, kNoValue},
      {"pad_const", [&] { return pad(E0344, {1, 1}); }, DimVector{0, 3, 4, 6}, kNoValue},
      {"mse", [&] { return F::mse_loss(E, E); }, DimVector{}, kNan},
      {"l1", [&] { return F::l1_loss(E, E); }, DimVector{}, kNan},
      {"bce", [&] { return F::binary_cross_entropy(E, E); }, DimVector{}, kNan},
      {"nll_empty", [&] { return F::nll_loss(E03, L0); }, DimVector{}, kNan},
      {"kl_div_batchmean", [&] { return F::kl_div(E03, E03, {.reduction = nn::Reduction::BatchMean}); },
       DimVector{}, kNan},
      {"dropout", [&] { return F::dropout(E); }, DimVector{0}, kNoValue},
      {"gather", [&] { return E03.gather(1, zeros({0, 1}, kInt64)); }, DimVector{0, 1}, kNoValue},
      {"index_select", [&] { return E03.index_select(0, L0); }, DimVector{0, 3}, kNoValue},
      {"masked_select", [&] { return E.masked_select(zeros({0}, kBool)); }, DimVector{0}, kNoValue},
      {"nonzero", [&] { return E.nonzero(); }, DimVector{0, 1}, kNoValue},
      {"solve", [&] { return linalg::solve(zeros({0, 0}), zeros({0})); }, DimVector{0}, kNoValue},
      {"qr", [&] { return std::get<0>(linalg::qr(zeros({0, 3}))); }, DimVector{0, 0}, kNoValue},
      {"einsum", [&] { return einsum("ij,jk->ik", {E03, randn({3, 2})}); }, DimVector{0, 2}, kNoValue},
      {"fft", [&] { return fft::fft(E); }, std::nullopt, 0},
      {"nanmedian", [&] { return nanmedian(E); }, DimVector{}, kNan},
      {"cosine_similarity", [&] { return F::cosine_similarity(E03, E03); }, DimVector{0}, kNoValue},
      {"batch_norm_eval", [&] { return F::batch_norm(E03, zeros({3}), ones({3})); }, DimVector{0, 3}, kNoValue},
      {"pixel_shuffle", [&] { return F::pixel_shuffle(zeros({0, 4, 2, 2}), 2); }, DimVector{0, 1, 4, 4}, kNoValue},
      {"unfold", [&] { return F::unfold(E0344, {.kernel_size = {2, 2}}); }, DimVector{0, 12, 9}, kNoValue},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    if (!c.shape) {
      EXPECT_THROW(c.fn(), Error);
      continue;
    }
    Tensor r;
    ASSERT_NO_THROW(r = c.fn());
    EXPECT_EQ(r.sizes(), IntArrayRef(*c.shape));
    if (r.numel() == 0) continue;
    const double v = r.flatten()[0].item<double>();
    if (std::isnan(c.first)) EXPECT_TRUE(std::isnan(v)) << v;
    else EXPECT_EQ(v, c.first);
  }
}

}  // namespace empty_inputs_test
