// ember::IValue, the one dynamic value (Note [One dynamic value type]): its
// conversions and errors, and round trips through a PyTorch checkpoint, the
// optimizer state and JSON in a safetensors file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace ivalue_test {

using testing::expect_error;

// The old names are aliases of the one type.
static_assert(std::is_same_v<autograd::IValue, IValue>);
static_assert(std::is_same_v<serialize::IValue, IValue>);
static_assert(std::is_same_v<optim::Value, IValue>);
static_assert(std::is_same_v<optim::Dict, ValueMap>);

TEST(IValue, PythonConversionsAndStrictAccessors) {
  const IValue i(int64_t{3}), f(2.0), half(2.5), t(full({1}, 4.0, kFloat64));
  // snake_case converts as Python does.
  EXPECT_EQ(i.to_double(), 3.0);
  EXPECT_EQ(f.to_int(), 2);
  EXPECT_EQ(t.to_double(), 4.0);
  expect_error([&] { half.to_int(); }, "IValue: expected an integer but got 2.5");
  expect_error([&] { IValue(zeros({2})).to_double(); }, "expected a number but got a tensor of 2 elements");
  expect_error([&] { IValue("s").to_bool(); }, "IValue: expected bool but got str");
  // camelCase is c10::IValue's, strict.
  expect_error([&] { i.toDouble(); }, "IValue: expected Double but got Int");
  expect_error([&] { f.toInt(); }, "IValue: expected Int but got Double");
  EXPECT_EQ(i.toInt(), 3);
  EXPECT_STREQ(IValue(std::vector<int64_t>{1, 2}).tagKind(), "IntList");
  EXPECT_STREQ(IValue(std::vector<double>{1, 2}).tagKind(), "GenericList");
  EXPECT_EQ(IValue(std::vector<int64_t>{1, 2}).toIntVector(), (std::vector<int64_t>{1, 2}));
  expect_error([] { IValue(std::vector<double>{1.5}).toIntVector(); }, "expected IntList but got GenericList");
}

TEST(IValue, ListsOfFloatsIntsAndTensors) {
  const IValue betas(std::pair<double, double>{0.9, 0.999});
  EXPECT_TRUE(betas.is_list());
  EXPECT_EQ(betas.to_double_list(), (std::vector<double>{0.9, 0.999}));
  EXPECT_EQ((betas.as<std::pair<double, double>>()), (std::pair<double, double>{0.9, 0.999}));
  // A tuple of ints reads as floats and as ints.
  const IValue tup = IValue::tuple({1, 2});
  EXPECT_EQ(tup.to_double_list(), (std::vector<double>{1, 2}));
  EXPECT_EQ(tup.as<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2}));
  expect_error([] { IValue::list({1, "x"}).to_double_list(); }, "a list of floats (an element is a str)");
  const IValue ts(std::vector<Tensor>{zeros({2}), ones({3})});
  EXPECT_TRUE(ts.is_tensor_list());
  EXPECT_FALSE(IValue(std::vector<Tensor>{}).is_tensor_list());  // empty: could be anything
  EXPECT_EQ(ts.to_tensor_list()[1].numel(), 3);
  // Optional: None when empty.
  EXPECT_TRUE(IValue(std::optional<double>()).is_none());
  EXPECT_EQ(IValue(std::optional<double>(1.5)).as<std::optional<double>>(), 1.5);
}

TEST(IValue, EqualityAndRepr) {
  EXPECT_EQ(IValue::list({1, 2.5, IValue()}), IValue::list({1, 2.5, IValue()}));
  EXPECT_NE(IValue::list({1, 2}), IValue::tuple({1, 2}));  // list and tuple differ, as in Python
  EXPECT_NE(IValue(1), IValue(1.0));                         // int and float differ (the JSON round trip keeps them)
  EXPECT_EQ(IValue(std::nan("")), IValue(std::nan("")));     // a saved NaN reads back equal
  EXPECT_EQ(IValue(tensor({1.0, 2.0})), IValue(tensor({1.0, 2.0})));
  EXPECT_NE(IValue(tensor({1.0, 2.0})), IValue(tensor({1.0, 3.0})));
  IDict d;
  d.insert("a", IValue::tuple({1}));
  d.insert(2, "x'y");
  std::ostringstream os;
  os << IValue::dict(d);
  EXPECT_EQ(os.str(), "{'a': (1,), 2: 'x\\'y'}");
}

// A PyTorch optimizer checkpoint -> optimizer state -> safetensors (tensors
// and JSON) -> optimizer state: every value survives unchanged.
TEST(IValue, CheckpointOptimizerStateJsonRoundTrip) {
  const IValue ckpt = serialize::load_torch(testing::fixture_path("core/optim/adam_groups_ckpt10.pt"));
  const optim::OptimizerStateDict from_torch = optim::optimizer_state_dict_from_torch(ckpt.at("optimizer"));
  ASSERT_FALSE(from_torch.state.empty());
  const auto& group = from_torch.param_groups.at(0).options;
  EXPECT_TRUE(group.at("betas").is_list());  // torch's tuple, as a list of floats
  EXPECT_TRUE(group.at("lr").is_double());

  StateDict tensors;
  Metadata meta;
  optim::write_optimizer_state(from_torch, tensors, meta);
  const std::string path = ::testing::TempDir() + "ember_ivalue_roundtrip.safetensors";
  ember::save(path, tensors, meta);
  Metadata meta2;
  const StateDict back_tensors = ember::load(path, &meta2);
  const optim::OptimizerStateDict back = optim::read_optimizer_state(back_tensors, meta2);
  std::remove(path.c_str());

  ASSERT_EQ(back.state.size(), from_torch.state.size());
  for (const auto& [index, state] : from_torch.state) {
    ASSERT_EQ(back.state.at(index).size(), state.size());
    for (const auto& [key, value] : state) EXPECT_EQ(back.state.at(index).at(key), value) << index << "." << key;
  }
  ASSERT_EQ(back.param_groups.size(), from_torch.param_groups.size());
  for (size_t g = 0; g < back.param_groups.size(); ++g) {
    EXPECT_EQ(back.param_groups[g].params, from_torch.param_groups[g].params);
    EXPECT_EQ(back.param_groups[g].options, from_torch.param_groups[g].options) << "group " << g;
  }
}

}  // namespace ivalue_test
}  // namespace ember
