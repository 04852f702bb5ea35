// Recurrent layers (RNN, LSTM, GRU, cells) and packed sequences against
// PyTorch (fixtures from scripts/fixtures/nn_rnn.py: the same weights are
// loaded by name, outputs and gradients compared in float64).
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_rnn_test {

using testing::expect_error;
using testing::expect_tensor_near;
namespace rnn = nn::utils::rnn;

Tensor fx(const std::string& name) { return testing::fixture("nn_rnn", name); }
Tensor leaf(const std::string& name) { return fx(name).requires_grad_(); }

// The module in float64 with the case's PyTorch weights, copied by name.
void load_weights(nn::Module& m, const std::string& c) {
  m.to(kFloat64);
  NoGradGuard no_grad;
  for (const auto& [name, p] : m.named_parameters()) {
    Tensor t = p;
    t.copy_(fx(c + "_p_" + name));
  }
}

void expect_weight_grads(nn::Module& m, const std::string& c) {
  for (const auto& [name, p] : m.named_parameters()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(p.grad().defined());
    expect_tensor_near(p.grad(), fx(c + "_g_" + name), 1e-9, 1e-10);
  }
}

struct Result {
  Tensor out, hn, cn;
};

// Runs `run` on the case's inputs (h0/c0 when the fixture has them), checks
// outputs, then the loss sum(out*w_out) + sum(h_n*w_h) (+ sum(c_n*w_c)) and
// the gradients of every input and weight.
void check_case(nn::Module& m, const std::string& c, bool has_h0, bool has_c0,
                const std::function<Result(const Tensor&, const Tensor&, const Tensor&)>& run) {
  load_weights(m, c);
  Tensor x = leaf(c + "_x");
  Tensor h0 = has_h0 ? leaf(c + "_h0") : Tensor();
  Tensor c0 = has_c0 ? leaf(c + "_c0") : Tensor();
  Result r = run(x, h0, c0);
  expect_tensor_near(r.hn, fx(c + "_hn"), 1e-10, 1e-12);
  Tensor loss = (r.hn * fx(c + "_wh")).sum();
  if (r.out.defined()) {  // cells have no separate output
    expect_tensor_near(r.out, fx(c + "_out"), 1e-10, 1e-12);
    loss = loss + (r.out * fx(c + "_wout")).sum();
  }
  if (r.cn.defined()) {
    expect_tensor_near(r.cn, fx(c + "_cn"), 1e-10, 1e-12);
    loss = loss + (r.cn * fx(c + "_wc")).sum();
  }
  loss.backward();
  expect_tensor_near(x.grad(), fx(c + "_gx"), 1e-9, 1e-10);
  if (has_h0) expect_tensor_near(h0.grad(), fx(c + "_gh0"), 1e-9, 1e-10);
  if (has_c0) expect_tensor_near(c0.grad(), fx(c + "_gc0"), 1e-9, 1e-10);
  expect_weight_grads(m, c);
}

TEST(NnRnn, LstmTwoLayerBidirectionalBatchFirstMatchesPyTorch) {
  nn::LSTM lstm(nn::LSTMOptions{
      .input_size = 5, .hidden_size = 6, .num_layers = 2, .batch_first = true, .bidirectional = true});
  check_case(*lstm, "lstm2bi", true, true, [&](const Tensor& x, const Tensor& h0, const Tensor& c0) {
    auto [out, state] = lstm(x, std::tuple{h0, c0});
    return Result{out, std::get<0>(state), std::get<1>(state)};
  });
}

TEST(NnRnn, LstmWithProjectionsMatchesPyTorch) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 4, .hidden_size = 6, .num_layers = 2, .proj_size = 3});
  EXPECT_EQ(lstm->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0",
                                      "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_hr_l1"}));
  EXPECT_EQ(lstm->named_parameters()["weight_hh_l1"].sizes(), IntArrayRef({24, 3}));
  EXPECT_EQ(lstm->named_parameters()["weight_ih_l1"].sizes(), IntArrayRef({24, 3}));
  EXPECT_EQ(lstm->named_parameters()["weight_hr_l0"].sizes(), IntArrayRef({3, 6}));
  check_case(*lstm, "lstmproj", false, false, [&](const Tensor& x, const Tensor&, const Tensor&) {
    auto [out, state] = lstm(x);
    EXPECT_EQ(std::get<0>(state).sizes(), IntArrayRef({2, 2, 3}));
    EXPECT_EQ(std::get<1>(state).sizes(), IntArrayRef({2, 2, 6}));
    return Result{out, std::get<0>(state), std::get<1>(state)};
  });
}

TEST(NnRnn, GruMatchesPyTorch) {
  nn::GRU gru(nn::GRUOptions{.input_size = 5, .hidden_size = 6, .num_layers = 2});
  check_case(*gru, "gru", true, false, [&](const Tensor& x, const Tensor& h0, const Tensor&) {
    auto [out, hn] = gru(x, h0);
    return Result{out, hn, Tensor()};
  });
}

TEST(NnRnn, ReluRnnBidirectionalWithoutBiasMatchesPyTorch) {
  nn::RNN rnn(nn::RNNOptions{.input_size = 4,
                             .hidden_size = 5,
                             .nonlinearity = "relu",
                             .bias = false,
                             .batch_first = true,
                             .bidirectional = true});
  EXPECT_EQ(rnn->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse"}));
  check_case(*rnn, "rnnrelu", true, false, [&](const Tensor& x, const Tensor& h0, const Tensor&) {
    auto [out, hn] = rnn(x, h0);
    return Result{out, hn, Tensor()};
  });
}

TEST(NnRnn, CellsMatchPyTorch) {
  {
    SCOPED_TRACE("RNNCell tanh");
    nn::RNNCell cell(4, 5);
    check_case(*cell, "rnncell", true, false, [&](const Tensor& x, const Tensor& h0, const Tensor&) {
      Tensor h = cell(x, h0);
      return Result{Tensor(), h, Tensor()};
    });
  }
  {
    SCOPED_TRACE("RNNCell relu");
    nn::RNNCell cell(nn::RNNCellOptions{.input_size = 4, .hidden_size = 5, .nonlinearity = "relu"});
    check_case(*cell, "rnncellrelu", true, false, [&](const Tensor& x, const Tensor& h0, const Tensor&) {
      Tensor h = cell(x, h0);
      return Result{Tensor(), h, Tensor()};
    });
  }
  {
    SCOPED_TRACE("LSTMCell");
    nn::LSTMCell cell(4, 5);
    check_case(*cell, "lstmcell", true, true, [&](const Tensor& x, const Tensor& h0, const Tensor& c0) {
      auto [h, c] = cell(x, std::tuple{h0, c0});
      return Result{Tensor(), h, c};
    });
  }
  {
    SCOPED_TRACE("GRUCell");
    nn::GRUCell cell(4, 5);
    check_case(*cell, "grucell", true, false, [&](const Tensor& x, const Tensor& h0, const Tensor&) {
      Tensor h = cell(x, h0);
      return Result{Tensor(), h, Tensor()};
    });
  }
}

void check_packed(nn::Module& m, const std::string& c, bool has_h0, bool has_c0,
                  const std::function<std::pair<rnn::PackedSequence, Result>(const rnn::PackedSequence&,
                                                                             const Tensor&, const Tensor&)>& run) {
  load_weights(m, c);
  Tensor x = leaf(c + "_x");
  Tensor h0 = has_h0 ? leaf(c + "_h0") : Tensor();
  Tensor c0 = has_c0 ? leaf(c + "_c0") : Tensor();
  rnn::PackedSequence packed = rnn::pack_padded_sequence(x, fx(c + "_lengths"), false, /*enforce_sorted=*/false);
  expect_tensor_near(packed.data, fx(c + "_packed_data"), 0, 0);
  EXPECT_TRUE(packed.batch_sizes.equal(fx(c + "_batch_sizes")));
  EXPECT_TRUE(packed.sorted_indices.equal(fx(c + "_sorted_indices")));
  auto [out_packed, r] = run(packed, h0, c0);
  expect_tensor_near(out_packed.data, fx(c + "_out_packed_data"), 1e-10, 1e-12);
  auto [out, lengths] = rnn::pad_packed_sequence(out_packed);
  EXPECT_TRUE(lengths.equal(fx(c + "_lengths")));
  expect_tensor_near(out, fx(c + "_out"), 1e-10, 1e-12);
  expect_tensor_near(r.hn, fx(c + "_hn"), 1e-10, 1e-12);
  Tensor loss = (out * fx(c + "_wout")).sum() + (r.hn * fx(c + "_wh")).sum();
  if (r.cn.defined()) {
    expect_tensor_near(r.cn, fx(c + "_cn"), 1e-10, 1e-12);
    loss = loss + (r.cn * fx(c + "_wc")).sum();
  }
  loss.backward();
  expect_tensor_near(x.grad(), fx(c + "_gx"), 1e-9, 1e-10);
  if (has_h0) expect_tensor_near(h0.grad(), fx(c + "_gh0"), 1e-9, 1e-10);
  if (has_c0) expect_tensor_near(c0.grad(), fx(c + "_gc0"), 1e-9, 1e-10);
  expect_weight_grads(m, c);
}

TEST(NnRnn, PackedUnsortedLstmMatchesPyTorch) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .bidirectional = true});
  check_packed(*lstm, "packedlstm", true, true,
               [&](const rnn::PackedSequence& p, const Tensor& h0, const Tensor& c0) {
                 auto [out, state] = lstm(p, std::tuple{h0, c0});
                 return std::pair{out, Result{Tensor(), std::get<0>(state), std::get<1>(state)}};
               });
}

TEST(NnRnn, PackedUnsortedGruMatchesPyTorch) {
  nn::GRU gru(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .bidirectional = true});
  check_packed(*gru, "packedgru", false, false, [&](const rnn::PackedSequence& p, const Tensor&, const Tensor&) {
    auto [out, hn] = gru->forward_with_packed_input(p);
    return std::pair{out, Result{Tensor(), hn, Tensor()}};
  });
}

TEST(NnRnn, PadAndPackSequenceMatchPyTorch) {
  std::vector<Tensor> seqs{leaf("padseq_in0"), leaf("padseq_in1"), leaf("padseq_in2")};
  Tensor padded = rnn::pad_sequence(seqs, /*batch_first=*/true, /*padding_value=*/-1.0);
  expect_tensor_near(padded, fx("padseq_out"), 0, 0);
  rnn::PackedSequence packed = rnn::pack_sequence(seqs, /*enforce_sorted=*/false);
  expect_tensor_near(packed.data, fx("packseq_data"), 0, 0);
  EXPECT_TRUE(packed.batch_sizes.equal(fx("packseq_batch_sizes")));
  EXPECT_TRUE(packed.sorted_indices.equal(fx("packseq_sorted_indices")));
  EXPECT_TRUE(packed.unsorted_indices.equal(fx("packseq_unsorted_indices")));
  // Round trip, batch_first, total_length; gradients reach the sequences.
  auto [back, lengths] = rnn::pad_packed_sequence(packed, true, -1.0, 4);
  EXPECT_EQ(back.sizes(), IntArrayRef({3, 4, 2}));
  expect_tensor_near(back.narrow(1, 0, 3), fx("padseq_out"), 0, 0);
  EXPECT_TRUE(lengths.equal(tensor({2, 3, 1})));
  (back * back).sum().backward();
  for (const Tensor& s : seqs) expect_tensor_near(s.grad(), 2 * s.detach(), 0, 0);
  // Sorted packing keeps no permutation.
  rnn::PackedSequence sorted = rnn::pack_sequence({seqs[1], seqs[0], seqs[2]});
  EXPECT_FALSE(sorted.sorted_indices.defined());
  EXPECT_TRUE(sorted.data.equal(packed.data));
  expect_error([&] { rnn::pack_sequence(seqs); }, "must be sorted in decreasing order");
  expect_error([&] { rnn::pad_packed_sequence(packed, false, 0, 2); }, "total_length=2");
  expect_error([&] { rnn::pack_padded_sequence(padded, std::vector<int64_t>{2, 0, 1}, true, false); },
               "greater than 0");
  expect_error([&] { rnn::pack_padded_sequence(padded, std::vector<int64_t>{2, 1}, true); }, "batch_size=3");
}

TEST(NnRnn, SmallLstmGradcheck) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 2, .hidden_size = 3, .num_layers = 2, .bidirectional = true});
  lstm->to(kFloat64);
  Tensor x = randn({3, 2, 2}, kFloat64).requires_grad_();
  Tensor h0 = randn({4, 2, 3}, kFloat64).requires_grad_();
  Tensor c0 = randn({4, 2, 3}, kFloat64).requires_grad_();
  auto f = [&](const autograd::variable_list& in) {
    auto [out, state] = lstm(in[0], std::tuple{in[1], in[2]});
    return autograd::variable_list{out, std::get<0>(state), std::get<1>(state)};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {x, h0, c0}));
  // Packed (sorted lengths 3, 1) and a GRU cell's second derivatives.
  auto fp = [&](const autograd::variable_list& in) {
    auto [out, state] = lstm(rnn::pack_padded_sequence(in[0], std::vector<int64_t>{3, 1}), std::tuple{in[1], in[2]});
    return autograd::variable_list{out.data, std::get<0>(state), std::get<1>(state)};
  };
  EXPECT_TRUE(autograd::gradcheck(fp, {x, h0, c0}));
  nn::GRUCell cell(2, 3);
  cell->to(kFloat64);
  auto fc = [&](const autograd::variable_list& in) { return autograd::variable_list{cell(in[0], in[1])}; };
  EXPECT_TRUE(autograd::gradgradcheck(fc, {randn({2, 2}, kFloat64).requires_grad_(),
                                           randn({2, 3}, kFloat64).requires_grad_()}));
}

TEST(NnRnn, ShapesLayoutsAndDefaults) {
  nn::GRU gru(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .bidirectional = true});
  Tensor x = randn({5, 2, 3});
  auto [out, hn] = gru(x);
  EXPECT_EQ(out.sizes(), IntArrayRef({5, 2, 8}));
  EXPECT_EQ(hn.sizes(), IntArrayRef({4, 2, 4}));
  // No h0 = zeros.
  auto [out0, hn0] = gru(x, zeros({4, 2, 4}));
  expect_tensor_near(out0, out, 0, 0);
  // The backward direction's last output is h_n's reverse entry at t = 0.
  expect_tensor_near(out.select(0, 0).narrow(1, 4, 4), hn.select(0, 3), 0, 0);
  expect_tensor_near(out.select(0, 4).narrow(1, 0, 4), hn.select(0, 2), 0, 0);
  // Unbatched input: [T, I] -> [T, D*H], h_n [L*D, H].
  auto [out1, hn1] = gru(x.select(1, 1));
  expect_tensor_near(out1, out.select(1, 1), 1e-6, 1e-6);
  EXPECT_EQ(hn1.sizes(), IntArrayRef({4, 4}));
  // batch_first is the same computation on transposed data.
  nn::LSTM a(nn::LSTMOptions{.input_size = 3, .hidden_size = 4}), b(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .batch_first = true});
  b->load_state_dict(a->state_dict());
  auto [oa, sa] = a(x);
  auto [ob, sb] = b(x.transpose(0, 1));
  expect_tensor_near(ob, oa.transpose(0, 1), 1e-6, 1e-6);
  expect_tensor_near(std::get<1>(sb), std::get<1>(sa), 1e-6, 1e-6);
  // The cell computes the layer's first step.
  nn::LSTMCell cell(3, 4);
  for (const std::string n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
    NoGradGuard g;
    Tensor p = cell->named_parameters()[n];
    p.copy_(a->named_parameters()[n + "_l0"]);
  }
  auto [h, c] = cell(x.select(0, 0));
  expect_tensor_near(h, oa.select(0, 0), 1e-6, 1e-6);
  auto [hu, cu] = cell(x.select(0, 0).select(0, 1));  // unbatched cell input
  expect_tensor_near(hu, h.select(0, 1), 1e-6, 1e-6);
}

TEST(NnRnn, InitAndPrinting) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 10,
                                .hidden_size = 20,
                                .num_layers = 2,
                                .batch_first = true,
                                .dropout = 0.5,
                                .bidirectional = true,
                                .proj_size = 5});
  EXPECT_EQ(lstm->str(),
            "LSTM(10, 20, proj_size=5, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)");
  EXPECT_EQ(lstm->all_weights().size(), 20u);
  const double bound = 1 / std::sqrt(20.0);
  for (const Tensor& p : lstm->parameters()) {
    EXPECT_LE(p.abs().max().item<double>(), bound);
    EXPECT_GT(p.abs().max().item<double>(), bound * 0.5);
  }
  EXPECT_EQ(nn::RNN(nn::RNNOptions{.input_size = 10, .hidden_size = 20, .nonlinearity = "relu", .bias = false})->str(),
            "RNN(10, 20, bias=False)");
  EXPECT_EQ(nn::GRU(3, 4)->str(), "GRU(3, 4)");
  EXPECT_EQ(nn::RNNCell(nn::RNNCellOptions{.input_size = 10, .hidden_size = 20, .bias = false, .nonlinearity = "relu"})
                ->str(),
            "RNNCell(10, 20, bias=False, nonlinearity=relu)");
  EXPECT_EQ(nn::LSTMCell(3, 4)->str(), "LSTMCell(3, 4)");
  EXPECT_EQ(nn::GRUCell(3, 4)->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(nn::GRUCell(3, 4)->weight_ih.sizes(), IntArrayRef({12, 3}));
}

TEST(NnRnn, DropoutBetweenLayersOnlyInTraining) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 3, .hidden_size = 8, .num_layers = 2, .dropout = 0.5});
  Tensor x = randn({4, 2, 3});
  lstm->eval();
  auto [e1, s1] = lstm(x);
  auto [e2, s2] = lstm(x);
  expect_tensor_near(e1, e2, 0, 0);
  lstm->train();
  auto [t1, st1] = lstm(x);
  EXPECT_FALSE(t1.allclose(e1));
  // dropout = 1 zeroes the second layer's input: its output no longer depends on x.
  nn::LSTM drop_all(nn::LSTMOptions{.input_size = 3, .hidden_size = 8, .num_layers = 2, .dropout = 1});
  auto [d1, ds1] = drop_all(x);
  auto [d2, ds2] = drop_all(randn({4, 2, 3}));
  expect_tensor_near(d1, d2, 0, 0);
  // A single layer has no dropout.
  nn::GRU one(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .dropout = 0.5});
  auto [o1, h1] = one(x);
  auto [o2, h2] = one(x);
  expect_tensor_near(o1, o2, 0, 0);
}

TEST(NnRnn, ErrorsNameTheModuleAndShapes) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 5, .hidden_size = 6, .num_layers = 2});
  expect_error([&] { lstm(randn({4, 3, 7})); },
               "LSTM: input.size(-1) must be equal to input_size. Expected 5, got 7");
  expect_error([&] { lstm(randn({4})); }, "LSTM: Expected input to be 2D or 3D, got 1D instead");
  expect_error([&] { lstm(randn({4, 3, 5}), std::tuple{randn({1, 3, 6}), randn({2, 3, 6})}); },
               "LSTM: Expected hidden[0] size (2, 3, 6), got [1, 3, 6]");
  expect_error([&] { lstm(randn({4, 3, 5}), std::tuple{randn({2, 3, 6}), randn({2, 3, 5})}); },
               "LSTM: Expected hidden[1] size (2, 3, 6), got [2, 3, 5]");
  expect_error([&] { lstm(randn({4, 3, 5}, kFloat64)); }, "does not match the weights' dtype");
  nn::GRU gru(3, 4);
  expect_error([&] { gru(randn({2, 1, 3}), randn({1, 2, 4})); }, "GRU: Expected hidden size (1, 1, 4), got [1, 2, 4]");
  expect_error([&] { gru(randn({2, 3}), randn({1, 2, 4})); }, "For unbatched 2-D input, hidden should also be 2-D");
  nn::RNNCell cell(3, 4);
  expect_error([&] { cell(randn({2, 5})); }, "RNNCell: input has inconsistent input_size: got 5 expected 3");
  expect_error([&] { cell(randn({2, 3}), randn({3, 4})); },
               "RNNCell: Input batch size 2 doesn't match hidden0 batch size 3");
  expect_error([&] { cell(randn({2, 3}), randn({2, 5})); }, "hidden0 has inconsistent hidden_size: got 5, expected 4");
  expect_error([&] { nn::LSTMCell(3, 4)(randn({2, 3}), std::tuple{randn({2, 4}), randn({2, 3})}); },
               "LSTMCell: hidden1 has inconsistent hidden_size: got 3, expected 4");
  expect_error([&] { nn::GRUCell(3, 4)(randn({1, 2, 3})); }, "GRUCell: Expected input to be 1-D or 2-D");
  expect_error([&] { nn::RNN(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .nonlinearity = "gelu"}); },
               "Unknown nonlinearity 'gelu'");
  expect_error([&] { nn::LSTM(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .proj_size = 4}); },
               "proj_size has to be smaller than hidden_size");
  expect_error([&] { nn::GRU(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .dropout = 1.5}); },
               "dropout should be a number in range [0, 1]");
  auto packed = rnn::pack_sequence({randn({2, 4})});
  expect_error([&] { lstm(packed); }, "LSTM: input.size(-1) must be equal to input_size. Expected 5, got 4");
}

}  // namespace nn_rnn_test
}  // namespace ember
