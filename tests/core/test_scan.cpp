#include <gtest/gtest.h>
#include <ember/ember.h>
using namespace ember;
TEST(Scan, Smoke) { EXPECT_EQ(cumsum(arange(4), 0).dtype(), kInt64); }
