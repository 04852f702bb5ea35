#include <gtest/gtest.h>
#include <ember/ember.h>
using namespace ember;
TEST(Sort, Smoke) { EXPECT_EQ(sort(arange(4)).first.dtype(), kInt64); }
