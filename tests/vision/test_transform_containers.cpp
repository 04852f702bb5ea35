// Transform containers (Compose, RandomApply, RandomChoice, RandomOrder,
// Lambda), the registry, and saving/loading pipelines.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

using namespace ember;
namespace T = ember::vision::transforms;

namespace transform_containers_test {

// A test transform: adds `value` (a saved parameter) to the image.
class AddImpl : public T::TransformImpl {
 public:
  explicit AddImpl(double value) : T::TransformImpl("TestAdd"), value_(value) {}
  Tensor forward(const Tensor& image) override { return image + value_; }
  T::Params params() const override { return {{"value", value_}}; }

 private:
  double value_;
};
EMBER_TRANSFORM(Add);

// Multiplies by 10: with Add, the order of application shows in the result.
class TimesTenImpl : public T::TransformImpl {
 public:
  TimesTenImpl() : T::TransformImpl("TestTimesTen") {}
  Tensor forward(const Tensor& image) override { return image * 10; }
  T::Params params() const override { return {}; }
};
EMBER_TRANSFORM(TimesTen);

void register_test_transforms() {
  static const bool once = [] {
    T::register_transform("TestAdd", [](const T::Params& p, std::vector<T::TransformPtr>) {
      return std::make_shared<AddImpl>(T::param<double>(p, "value", "TestAdd"));
    });
    T::register_transform("TestTimesTen",
                          [](const T::Params&, std::vector<T::TransformPtr>) { return std::make_shared<TimesTenImpl>(); });
    return true;
  }();
  (void)once;
}

double scalar(const Tensor& t) { return t.item<double>(); }

TEST(TransformContainers, ComposeAppliesInOrder) {
  T::Compose pipeline({Add(1.0), TimesTen(), Add(2.0)});
  EXPECT_EQ(scalar(pipeline(full({1}, 3.0))), 42.0);
  EXPECT_EQ(pipeline->transforms().size(), 3u);
  EXPECT_EQ(pipeline->named_children().size(), 3u);
  // Sequential is the same transform.
  T::Sequential seq({TimesTen()});
  EXPECT_EQ(scalar(seq(full({1}, 2.0))), 20.0);
  EXPECT_THROW(T::Compose(std::vector<T::TransformPtr>{nullptr}), Error);
}

TEST(TransformContainers, RandomApplyFrequency) {
  manual_seed(3);
  T::RandomApply never({Add(1.0)}, 0.0), always({Add(1.0)}, 1.0), sometimes({Add(1.0), Add(1.0)}, 0.3);
  int applied = 0;
  for (int i = 0; i < 4000; ++i) {
    EXPECT_EQ(scalar(never(zeros({1}))), 0.0);
    EXPECT_EQ(scalar(always(zeros({1}))), 1.0);
    const double v = scalar(sometimes(zeros({1})));
    ASSERT_TRUE(v == 0.0 || v == 2.0);  // all or nothing
    applied += v == 2.0;
  }
  EXPECT_NEAR(applied / 4000.0, 0.3, 0.03);
  EXPECT_THROW(T::RandomApply({Add(1.0)}, 1.5), Error);
}

TEST(TransformContainers, RandomChoiceWeights) {
  manual_seed(4);
  T::RandomChoice uniform({Add(0.0), Add(1.0), Add(2.0)});
  T::RandomChoice weighted({Add(0.0), Add(1.0), Add(2.0)}, std::vector<double>{1.0, 0.0, 3.0});
  std::vector<int> u(3, 0), w(3, 0);
  for (int i = 0; i < 6000; ++i) {
    ++u[static_cast<size_t>(scalar(uniform(zeros({1}))))];
    ++w[static_cast<size_t>(scalar(weighted(zeros({1}))))];
  }
  for (int c : u) EXPECT_NEAR(c / 6000.0, 1.0 / 3, 0.03);
  EXPECT_NEAR(w[0] / 6000.0, 0.25, 0.03);
  EXPECT_EQ(w[1], 0);
  EXPECT_NEAR(w[2] / 6000.0, 0.75, 0.03);
  EXPECT_THROW(T::RandomChoice({Add(0.0)}, std::vector<double>{1.0, 2.0}), Error);
  EXPECT_THROW(T::RandomChoice({Add(0.0)}, std::vector<double>{0.0}), Error);
  EXPECT_THROW(T::RandomChoice(std::vector<T::TransformPtr>{}), Error);
}

TEST(TransformContainers, RandomOrderVisitsEveryPermutation) {
  manual_seed(5);
  T::RandomOrder order({Add(1.0), TimesTen(), Add(2.0)});
  std::set<double> seen;
  for (int i = 0; i < 300; ++i) seen.insert(scalar(order(zeros({1}))));
  // The six orders of (+1, *10, +2) applied to 0: (0+1)*10+2 = 12, (0+1+2)*10 = 30,
  // 0*10+1+2 = 3, 0*10+2+1 = 3, (0+2)*10+1 = 21, (0+2+1)*10 = 30.
  EXPECT_EQ(seen, (std::set<double>{3, 12, 21, 30}));
}

TEST(TransformContainers, SaveLoadRoundTrip) {
  register_test_transforms();
  T::Compose pipeline({Add(1.5), T::RandomApply({TimesTen(), Add(-1.0)}, 0.5),
                       T::RandomChoice({Add(1.0), Add(2.0)}, std::vector<double>{0.2, 0.8}),
                       T::RandomOrder({Add(3.0), TimesTen()})});
  const std::string json = T::to_json(*pipeline);
  T::TransformPtr loaded = T::from_json(json);
  EXPECT_EQ(T::to_json(*loaded), json);
  EXPECT_EQ(loaded->str(), pipeline->str());

  // Same seed, same outputs.
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    manual_seed(seed);
    const double a = scalar(pipeline(zeros({1})));
    manual_seed(seed);
    const double b = scalar((*loaded)(zeros({1})));
    EXPECT_EQ(a, b) << "seed " << seed;
  }

  const auto path = std::filesystem::temp_directory_path() / "ember_transform_roundtrip.json";
  T::save(path.string(), *pipeline);
  EXPECT_EQ(T::to_json(*T::load(path.string())), json);
  std::filesystem::remove(path);
}

TEST(TransformContainers, Lambda) {
  T::Lambda anonymous([](const Tensor& x) { return x * 2; });
  EXPECT_EQ(scalar(anonymous(full({1}, 4.0))), 8.0);
  EXPECT_THROW(T::to_json(*anonymous), Error);

  T::Lambda named([](const Tensor& x) { return x - 1; }, "minus_one");
  const std::string json = T::to_json(*named);
  EXPECT_THROW(T::from_json(json), Error);  // not registered yet
  T::register_lambda("minus_one", [](const Tensor& x) { return x - 1; });
  EXPECT_EQ(scalar((*T::from_json(json))(full({1}, 4.0))), 3.0);
}

TEST(TransformContainers, GeneratorScopeMakesDrawsReproducible) {
  T::RandomChoice choice({Add(0.0), Add(1.0), Add(2.0), Add(3.0)});
  auto run = [&](uint64_t seed) {
    Generator g(seed);
    GeneratorScope scope(g);
    std::vector<double> out;
    for (int i = 0; i < 20; ++i) out.push_back(scalar(choice(zeros({1}))));
    return out;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

TEST(TransformContainers, BadDocuments) {
  register_test_transforms();
  EXPECT_THROW(T::from_json("{}"), Error);
  EXPECT_THROW(T::from_json("not json"), Error);
  EXPECT_THROW(T::from_json(R"({"format": "ember.transform", "version": 2, "transform": {}})"), Error);
  EXPECT_THROW(
      T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": "Nope", "params": {}, "children": []}})"),
      Error);
  // A missing parameter names the transform and the key.
  try {
    T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": "TestAdd", "params": {}, "children": []}})");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TestAdd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("value"), std::string::npos) << e.what();
  }
  EXPECT_THROW(T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": "TestAdd", "params": {"value": "x"}, "children": []}})"),
               Error);
  EXPECT_THROW(T::load("/nonexistent/dir/t.json"), Error);
  EXPECT_THROW(T::register_transform("Compose", [](const T::Params&, std::vector<T::TransformPtr>) { return nullptr; }),
               Error);
  const auto names = T::registered_transforms();
  EXPECT_TRUE(std::find(names.begin(), names.end(), "RandomOrder") != names.end());
}

TEST(TransformContainers, TransformTravelsInACheckpoint) {
  register_test_transforms();
  T::Compose preprocess({Add(0.5), TimesTen()});
  const OrderedDict<Tensor> weights{{"w", arange(4, kFloat32)}};
  Metadata meta;
  meta["note"] = "kept";
  T::write_transform(*preprocess, meta);
  const auto path = std::filesystem::temp_directory_path() / "ember_transform_checkpoint.safetensors";
  ember::save(path.string(), weights, meta);

  Metadata loaded;
  const OrderedDict<Tensor> back = ember::load(path.string(), &loaded);
  std::filesystem::remove(path);
  EXPECT_TRUE(equal(back.at("w"), weights.at("w")));
  EXPECT_EQ(loaded.at("note"), "kept");
  EXPECT_EQ(scalar((*T::read_transform(loaded))(full({1}, 1.0))), 15.0);
  EXPECT_THROW(T::read_transform(loaded, "no_such_key"), Error);
}

}  // namespace transform_containers_test
