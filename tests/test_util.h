#pragma once
// Helpers shared by Ember's test suites.
#include <initializer_list>

#include <ember/ember.h>

namespace ember::testing {

// Element at a multi-index, converted to T (works for any dtype and strides).
template <class T>
T at(const Tensor& t, std::initializer_list<int64_t> index) {
  Tensor v = t;
  for (int64_t i : index) v = v.select(0, i);
  return v.item<T>();
}

}  // namespace ember::testing
