// models::create / list_models.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/models/classifier.h>

using namespace ember;

TEST(ModelFactory, UnknownNameListsTheAvailableOnes) {
  try {
    models::create("no_such_net");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_net"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("available"), std::string::npos) << e.what();
  }
  EXPECT_THROW(models::create("resnet18", {.num_classes = 0}), Error);
  const auto names = models::list_models();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}
