// Built against the installed Ember: checks that headers, library and
// package config work for an outside project.
#include <ember/ember.h>

#include <iostream>

int main() {
  ember::Tensor a = ember::arange(6, ember::kFloat32).view({2, 3});
  ember::Tensor b = ember::ones({3});
  ember::Tensor c = (a + b).sum();
  std::cout << c << "\n";
  return c.item<float>() == 21.f ? 0 : 1;
}
