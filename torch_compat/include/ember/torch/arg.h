#pragma once
// EMBER_TORCH_ARG(T, name): a libtorch option field (TORCH_ARG). In a class,
// `opts.name(value)` sets it and returns the options for chaining,
// `opts.name()` reads it; a default follows the macro: EMBER_TORCH_ARG(bool, bias) = true;
#define EMBER_TORCH_ARG(T, name)            \
 public:                                    \
  auto& name(const T& new_##name) {         \
    this->name##_ = new_##name;             \
    return *this;                           \
  }                                         \
  const T& name() const { return name##_; } \
                                            \
 private:                                   \
  T name##_
