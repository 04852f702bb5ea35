// The suite's transform base, containers and JSON registry
// (ember/transforms/*.h), with transforms defined here (vision's and audio's
// own tests cover their families).
#include <gtest/gtest.h>

#include <ember/ember.h>

namespace test_transforms_registry_test {

using namespace ember;
namespace T = ember::transforms;

// x * factor.
class ScaleImpl : public T::TransformImpl {
 public:
  explicit ScaleImpl(double factor) : T::TransformImpl("TestScale"), factor_(factor) {}
  Tensor forward(const Tensor& input) override { return input * factor_; }
  T::Params params() const override { return {{"factor", factor_}}; }
  // Scale then Scale fuses into one multiplication; counted so the test sees Compose use it.
  std::optional<Tensor> forward_fused(const T::TransformImpl& next, const Tensor& input) override {
    const auto* other = dynamic_cast<const ScaleImpl*>(&next);
    if (!other) return std::nullopt;
    ++fused_calls;
    return input * (factor_ * other->factor_);
  }
  static inline int fused_calls = 0;

 private:
  double factor_;
};
EMBER_TRANSFORM(Scale);

// x + 1.
class AddOneImpl : public T::TransformImpl {
 public:
  AddOneImpl() : T::TransformImpl("TestAddOne") {}
  Tensor forward(const Tensor& input) override { return input + 1; }
  T::Params params() const override { return {}; }
};
EMBER_TRANSFORM(AddOne);

void register_test_family() {
  T::register_transform_family("core-test", [](const T::AddTransform& add) {
    add("TestScale", [](const T::Params& p, std::vector<T::TransformPtr>) {
      return std::make_shared<ScaleImpl>(T::param<double>(p, "factor", "TestScale"));
    });
    add("TestAddOne", [](const T::Params&, std::vector<T::TransformPtr>) { return std::make_shared<AddOneImpl>(); });
  });
}

TEST(Transforms, ComposeRunsInOrderAndUsesFusedPairs) {
  const Tensor x = arange(4, kFloat64);
  ScaleImpl::fused_calls = 0;
  T::Compose pipeline({Scale(2.0), Scale(3.0), AddOne()});
  EXPECT_TRUE(equal(pipeline(x), x * 6 + 1));
  EXPECT_EQ(ScaleImpl::fused_calls, 1);
  T::Compose unfused({AddOne(), Scale(2.0)});
  EXPECT_TRUE(equal(unfused(x), (x + 1) * 2));
}

TEST(Transforms, FamilyRoundTripsThroughJson) {
  register_test_family();
  register_test_family();  // a second registration of a family is a no-op
  EXPECT_TRUE(T::is_registered_transform("TestScale"));
  EXPECT_TRUE(T::is_registered_transform("Compose"));
  T::Compose pipeline({Scale(0.5), T::RandomApply({AddOne()}, 1.0)});
  const std::string json = T::to_json(*pipeline);
  const T::TransformPtr back = T::from_json(json);
  EXPECT_EQ(T::to_json(*back), json);
  const Tensor x = arange(3, kFloat64);
  EXPECT_TRUE(equal((*back)(x), x * 0.5 + 1));
}

TEST(Transforms, FamilyWithATakenNameRegistersNothing) {
  register_test_family();
  try {
    T::register_transform_family("core-test-clash", [](const T::AddTransform& add) {
      add("TestFresh", [](const T::Params&, std::vector<T::TransformPtr>) { return std::make_shared<AddOneImpl>(); });
      add("TestScale", [](const T::Params&, std::vector<T::TransformPtr>) { return std::make_shared<AddOneImpl>(); });
    });
    FAIL() << "a family reusing a registered type name must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TestScale"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(T::is_registered_transform("TestFresh"));
}

TEST(Transforms, UnknownTypeNamesTheType) {
  const std::string doc =
      R"({"format": "ember.transform", "version": 1, "transform": {"type": "NoSuchThing", "params": {}, "children": []}})";
  try {
    T::from_json(doc);
    FAIL() << "an unknown type must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchThing"), std::string::npos) << e.what();
  }
}

// A transform of strings (as text's are): no tensor forward, same registry.
class PrefixImpl : public T::TransformBase {
 public:
  explicit PrefixImpl(std::string prefix) : T::TransformBase("TestPrefix"), prefix_(std::move(prefix)) {}
  std::string forward(const std::string& s) const { return prefix_ + s; }
  T::Params params() const override { return {{"prefix", prefix_}}; }

 private:
  std::string prefix_;
};

TEST(Transforms, NonTensorTransformsShareTheRegistry) {
  T::register_any_transform_family("core-test-strings", [](const T::AddAnyTransform& add) {
    add("TestPrefix", [](const T::Params& p, std::vector<T::AnyTransformPtr>) -> T::AnyTransformPtr {
      return std::make_shared<PrefixImpl>(T::param<std::string>(p, "prefix", "TestPrefix"));
    });
  });
  const PrefixImpl prefix("pre-");
  const std::string json = T::to_json(prefix);
  const T::AnyTransformPtr back = T::from_json_any(json);
  const auto* loaded = dynamic_cast<const PrefixImpl*>(back.get());
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->forward("fix"), "pre-fix");
  EXPECT_EQ(T::to_json(*back), json);
  // The tensor loaders refuse it by name, and a tensor container refuses it as a child.
  try {
    T::from_json(json);
    FAIL() << "a string transform must not load as a tensor transform";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TestPrefix"), std::string::npos) << e.what();
  }
  const std::string nested = R"({"format": "ember.transform", "version": 1, "transform": {"type": "Compose", )"
                             R"("params": {}, "children": [{"type": "TestPrefix", "params": {"prefix": "x"}, )"
                             R"("children": []}]}})";
  try {
    T::from_json_any(nested);
    FAIL() << "Compose must refuse a child that does not transform tensors";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Compose"), std::string::npos) << e.what();
  }
}

}  // namespace test_transforms_registry_test
