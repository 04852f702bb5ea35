// Shape ops: cat/stack, flip/roll, repeat/tile, repeat_interleave, tril/triu, pad.
#include <gtest/gtest.h>

#include <ember/ember.h>

using namespace ember;

TEST(Shape, Smoke) {
  Tensor a = arange(6).view({2, 3});
  EXPECT_TRUE(equal(cat({a, a}, 1), cat({a, a}, -1)));
}
