#pragma once
// Dynamically quantized recurrent modules (torch.ao.nn.quantized.dynamic
// LSTM, GRU, LSTMCell, GRUCell, RNNCell, PyTorch 1.13): qint8 weights, float
// biases, float in and out; every input of a weight product is quantized to
// quint8 on the fly over its own min/max (functional::linear_dynamic, as
// torch's onednn engine). With float16 weights (float16_dynamic_qconfig, or
// weight_dtype = kFloat16) the products run in float32 over the float16
// weights (functional::linear_dynamic_fp16, as torch's fbgemm engine). dynamic::Linear is in modules.h. quantize_dynamic
// (ember/ao/quantization/quantize_dynamic.h) makes them from float modules.
//
//   nn::LSTM lstm(nn::LSTMOptions{.input_size = 8, .hidden_size = 16});
//   auto q = ao::nn::quantized::dynamic::LSTM(dynamic::LSTMImpl::from_float(*lstm));
//   auto [out, state] = q(x);
//
// Weights are registered buffers with the float module's names
// (weight_ih_l0 qint8, bias_ih_l0 float32, ..., "_reverse"), so state_dict,
// save and load carry them (torch's own keys, _all_weight_values.N.param,
// hold packed TorchScript objects).
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/rnn.h"

namespace ember::ao::quantization {
struct QConfig;
}

namespace ember::ao::nn::quantized {

// A float weight quantized by qconfig.weight's observer (torch's
// _quantize_weight): qint8 per tensor, or per channel along the observer's
// ch_axis. `who` names the module in errors.
Tensor quantize_weight(const Tensor& weight, const ao::quantization::QConfig& qconfig, const char* who);
// What the dynamic modules store for a float weight under qconfig: float16
// (saturated, functional::saturate_weight_to_fp16) when the weight
// observer's dtype is float16, else quantize_weight's qint8 tensor.
Tensor dynamic_weight(const Tensor& weight, const ao::quantization::QConfig& qconfig, const char* who);
// kFloat16 or kQInt8: the weight dtype dynamic modules take from qconfig.
DType dynamic_weight_dtype(const ao::quantization::QConfig& qconfig);

namespace dynamic {

// What LSTM and GRU share: the per-layer weights and the layer loop.
class RNNBaseImpl : public ember::nn::Module {
 public:
  bool is_lstm() const { return lstm_; }
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  int64_t num_layers() const { return num_layers_; }
  bool bidirectional() const { return bidirectional_; }
  bool batch_first() const { return batch_first_; }
  void pretty_print(std::ostream& os) const override;
  // Per layer and direction (layer * directions + direction): qint8 [G*H, in]
  // and [G*H, H], float32 [G*H] (G = 4 for LSTM, 3 for GRU).
  std::vector<Tensor> weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  RNNBaseImpl(std::string name, bool lstm, int64_t input_size, int64_t hidden_size, int64_t num_layers,
              bool batch_first, bool bidirectional, DType weight_dtype);
  // Quantizes the float module's weights (one observer per weight, as torch).
  void quantize_from(const ember::nn::detail::RNNImplBase& m, bool bias, int64_t proj_size,
                     const ao::quantization::QConfig& qconfig);
  // input [T, B, I] ([B, T, I] batch_first) or unbatched [T, I]; hx/cx
  // [L*D, B, H] or undefined (zeros). Returns (output, h_n, c_n).
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& hx, const Tensor& cx);

 private:
  bool lstm_;
  int64_t input_size_, hidden_size_, num_layers_;
  bool batch_first_, bidirectional_;
};

class LSTMImpl : public RNNBaseImpl {
 public:
  using State = std::tuple<Tensor, Tensor>;  // (h, c)
  // Weights zero (qint8 with scale 1, or float16), biases zero, until set or
  // loaded. weight_dtype: kQInt8 or kFloat16 (torch's dtype argument).
  explicit LSTMImpl(const ember::nn::LSTMOptions& options, DType weight_dtype = kQInt8);
  std::tuple<Tensor, State> forward(const Tensor& input, const std::optional<State>& hx = std::nullopt);
  // torch's LSTM.from_float (biases required; no proj_size); without a
  // qconfig, default_dynamic_qconfig.
  static std::shared_ptr<LSTMImpl> from_float(const ember::nn::LSTMImpl& m, const ao::quantization::QConfig& qconfig);
  static std::shared_ptr<LSTMImpl> from_float(const ember::nn::LSTMImpl& m);
  ember::nn::LSTMOptions options;
};
EMBER_MODULE(LSTM);

class GRUImpl : public RNNBaseImpl {
 public:
  explicit GRUImpl(const ember::nn::GRUOptions& options, DType weight_dtype = kQInt8);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
  static std::shared_ptr<GRUImpl> from_float(const ember::nn::GRUImpl& m, const ao::quantization::QConfig& qconfig);
  static std::shared_ptr<GRUImpl> from_float(const ember::nn::GRUImpl& m);
  ember::nn::GRUOptions options;
};
EMBER_MODULE(GRU);

// Cells: one step, input [B, I] or unbatched [I] (reduce_range as the layers).
class RNNCellBaseImpl : public ember::nn::Module {
 public:
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // buffers, as RNNBaseImpl's
  int64_t input_size, hidden_size;
  void pretty_print(std::ostream& os) const override;

 protected:
  RNNCellBaseImpl(std::string name, int64_t gates, int64_t input_size, int64_t hidden_size, DType weight_dtype);
  void quantize_from(const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                     const ao::quantization::QConfig& qconfig);
  // (x [B, I], whether the input was unbatched)
  std::pair<Tensor, bool> batched(const Tensor& input) const;
  Tensor state_or_zeros(const Tensor& h, int64_t batch, bool unbatched, const char* what) const;
};

class LSTMCellImpl : public RNNCellBaseImpl {
 public:
  explicit LSTMCellImpl(const ember::nn::LSTMCellOptions& options, DType weight_dtype = kQInt8);
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  static std::shared_ptr<LSTMCellImpl> from_float(const ember::nn::LSTMCellImpl& m,
                                                  const ao::quantization::QConfig& qconfig);
};
EMBER_MODULE(LSTMCell);

class GRUCellImpl : public RNNCellBaseImpl {
 public:
  explicit GRUCellImpl(const ember::nn::GRUCellOptions& options, DType weight_dtype = kQInt8);
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  static std::shared_ptr<GRUCellImpl> from_float(const ember::nn::GRUCellImpl& m,
                                                 const ao::quantization::QConfig& qconfig);
};
EMBER_MODULE(GRUCell);

// h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu: options.nonlinearity),
// torch's quantized_rnn_tanh_cell_dynamic / _relu_cell_dynamic.
class RNNCellImpl : public RNNCellBaseImpl {
 public:
  explicit RNNCellImpl(const ember::nn::RNNCellOptions& options, DType weight_dtype = kQInt8);
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  static std::shared_ptr<RNNCellImpl> from_float(const ember::nn::RNNCellImpl& m,
                                                 const ao::quantization::QConfig& qconfig);
  void pretty_print(std::ostream& os) const override;
  ember::nn::RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

}  // namespace dynamic
}  // namespace ember::ao::nn::quantized
