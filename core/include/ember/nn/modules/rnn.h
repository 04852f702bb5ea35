#pragma once
// Recurrent layers, as PyTorch's: RNN (tanh/relu), LSTM (with projections),
// GRU, and their single-step cells. Multi-layer, bidirectional, batch_first,
// dropout between layers (training only), optional biases, packed sequences.
//
//   nn::LSTM lstm(nn::LSTMOptions{.input_size = 10, .hidden_size = 20, .num_layers = 2,
//                                 .batch_first = true, .bidirectional = true});
//   auto [out, state] = lstm(x);             // x [B, T, 10] -> out [B, T, 40]
//   auto [h_n, c_n] = state;                 // [4, B, 20] each
//
// Parameters carry PyTorch's names (weight_ih_l0, weight_hh_l0, bias_ih_l0,
// bias_hh_l0, weight_hr_l0 with proj_size, "_reverse" for the backward
// direction), shapes and gate order (LSTM i, f, g, o; GRU r, z, n), so that a
// PyTorch state_dict loads as is. All are initialized U(-1/sqrt(hidden), 1/sqrt(hidden)).
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {

using utils::rnn::PackedSequence;

struct RNNOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 1;
  std::string nonlinearity = "tanh";  // "tanh" or "relu"
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;  // on the outputs of every layer but the last, in training mode
  bool bidirectional = false;
};

struct LSTMOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;
  bool bidirectional = false;
  int64_t proj_size = 0;  // > 0: h_t = W_hr (o_t * tanh(c_t)), of size proj_size
};

struct GRUOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;
  bool bidirectional = false;
};

namespace detail {
enum class RNNMode { RNN_TANH, RNN_RELU, LSTM, GRU };

// What RNN, LSTM and GRU share: the per-layer weights and the layer loop.
class RNNImplBase : public Module {
 public:
  // The weights of every layer and direction, in PyTorch's order
  // (w_ih, w_hh[, b_ih, b_hh][, w_hr]).
  std::vector<Tensor> all_weights() const;
  const std::vector<std::string>& flat_weights_names() const { return names_; }
  // Re-draws every weight from U(-1/sqrt(hidden), 1/sqrt(hidden)).
  void reset_parameters();
  // Kept for PyTorch compatibility; weights are always used in place.
  void flatten_parameters() {}
  void pretty_print(std::ostream& os) const override;

 protected:
  struct Config {
    RNNMode mode;
    int64_t input_size, hidden_size, num_layers;
    bool bias, batch_first;
    double dropout;
    bool bidirectional;
    int64_t proj_size;
  };
  RNNImplBase(std::string name, const Config& config);

  // Runs every layer; input is [T, B, I] time-major (or packed data [N, I]
  // with batch_sizes), hx [L*D, B, H_out], cx [L*D, B, H] (LSTM) or undefined.
  // Returns (output [T, B, D*H_out] or [N, D*H_out], h_n, c_n).
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const std::vector<int64_t>* batch_sizes,
                                         const Tensor& hx, const Tensor& cx);
  // forward() for a plain tensor: checks, batch_first, unbatched input, h0 defaults.
  std::tuple<Tensor, Tensor, Tensor> forward_tensor(const Tensor& input, const Tensor& hx, const Tensor& cx);
  std::tuple<PackedSequence, Tensor, Tensor> forward_packed(const PackedSequence& input, const Tensor& hx,
                                                            const Tensor& cx);

  Config config_;
  std::vector<std::string> names_;
  // The weights forward reads, bound to the registered parameters (sized once:
  // the module binds pointers into it).
  std::vector<Tensor> flat_weights_;

 private:
  int64_t out_size() const { return config_.proj_size > 0 ? config_.proj_size : config_.hidden_size; }
  void check_input(const Tensor& input, int64_t expected_dim) const;
  void check_hidden(const Tensor& h, IntArrayRef expected, const char* what) const;
};
}  // namespace detail

// Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu.
class RNNImpl : public detail::RNNImplBase {
 public:
  using Options = RNNOptions;
  explicit RNNImpl(const RNNOptions& options);
  RNNImpl(int64_t input_size, int64_t hidden_size)
      : RNNImpl(RNNOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  // input [T, B, I] ([B, T, I] with batch_first) or unbatched [T, I]; hx
  // [L*D, B, H] (zeros when undefined). Returns (output [T, B, D*H], h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& hx = {});
  std::tuple<PackedSequence, Tensor> forward_with_packed_input(const PackedSequence& input, const Tensor& hx = {}) {
    return forward(input, hx);
  }
  RNNOptions options;
};
EMBER_MODULE(RNN);

// LSTM: gates i, f, g, o = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh (sigmoid,
// sigmoid, tanh, sigmoid); c_t = f c_{t-1} + i g; h_t = o tanh(c_t) (times W_hr^T with proj_size).
class LSTMImpl : public detail::RNNImplBase {
 public:
  using Options = LSTMOptions;
  using State = std::tuple<Tensor, Tensor>;  // (h, c)
  explicit LSTMImpl(const LSTMOptions& options);
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  // hx: (h0 [L*D, B, H_out], c0 [L*D, B, H]), zeros when absent.
  // Returns (output [T, B, D*H_out], (h_n, c_n)).
  std::tuple<Tensor, State> forward(const Tensor& input, const std::optional<State>& hx = std::nullopt);
  std::tuple<PackedSequence, State> forward(const PackedSequence& input,
                                            const std::optional<State>& hx = std::nullopt);
  std::tuple<PackedSequence, State> forward_with_packed_input(const PackedSequence& input,
                                                              const std::optional<State>& hx = std::nullopt) {
    return forward(input, hx);
  }
  LSTMOptions options;
};
EMBER_MODULE(LSTM);

// GRU: r, z = sigmoid(x W_i{r,z}^T + b_i{r,z} + h W_h{r,z}^T + b_h{r,z});
// n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)); h_t = (1 - z) n + z h_{t-1}.
class GRUImpl : public detail::RNNImplBase {
 public:
  using Options = GRUOptions;
  explicit GRUImpl(const GRUOptions& options);
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& hx = {});
  std::tuple<PackedSequence, Tensor> forward_with_packed_input(const PackedSequence& input, const Tensor& hx = {}) {
    return forward(input, hx);
  }
  GRUOptions options;
};
EMBER_MODULE(GRU);

// ---- cells: one time step; input [B, I] or unbatched [I] ----

struct RNNCellOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  bool bias = true;
  std::string nonlinearity = "tanh";
};

struct LSTMCellOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  bool bias = true;
};

struct GRUCellOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  bool bias = true;
};

namespace detail {
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  RNNCellImplBase(std::string name, int64_t input_size, int64_t hidden_size, bool bias, int64_t gates,
                  std::string nonlinearity);
  // Checks sizes; returns (input, hx) made 2-d, hx zeros when undefined, and whether input was batched.
  std::tuple<Tensor, Tensor, bool> prepare(const Tensor& input, const Tensor& hx, const char* hx_name) const;
  void check_hidden(const Tensor& input, const Tensor& hx, const char* hx_name) const;
  int64_t input_size_, hidden_size_;
  bool bias_;
  std::string nonlinearity_;
};
}  // namespace detail

class RNNCellImpl : public detail::RNNCellImplBase {
 public:
  using Options = RNNCellOptions;
  explicit RNNCellImpl(const RNNCellOptions& options);
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  // Returns h' [B, H].
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

class LSTMCellImpl : public detail::RNNCellImplBase {
 public:
  using Options = LSTMCellOptions;
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  // Returns (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

class GRUCellImpl : public detail::RNNCellImplBase {
 public:
  using Options = GRUCellOptions;
  explicit GRUCellImpl(const GRUCellOptions& options);
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
