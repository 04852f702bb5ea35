#pragma once
// EMBER_TORCH_OPTIONS(Name, EmberOptions, FIELDS, constructors...): a libtorch
// option class with chained setters generated from one field list, for the
// options that are a plain copy of Ember's designated-initializer struct.
// FIELDS is an X-macro, `#define ELU_FIELDS(X) X(double, alpha, 1.0) X(bool, inplace, false)`:
// each X(type, name, libtorch's default) gives `opts.name(value)` (returns the
// options, for chaining) and `opts.name()`, and the conversion to EmberOptions
// copies every field to Ember's member of the same name. The trailing
// arguments are the class's constructors (libtorch's positional arguments);
// none gives a default-constructible class. One macro rather than a class
// per option keeps the headers short and the compile cheap (no templates).
#include "ember/torch/arg.h"

#define EMBER_TORCH_OPTIONS_DECLARE_(T, name, default_value) EMBER_TORCH_ARG(T, name) = default_value;
#define EMBER_TORCH_OPTIONS_COPY_(T, name, default_value) converted.name = name##_;

#define EMBER_TORCH_OPTIONS(Name, EmberOptions, FIELDS, ...)           \
  class Name {                                                         \
   public:                                                             \
    __VA_ARGS__                                                        \
    operator EmberOptions() const { /* NOLINT(google-explicit-constructor) */ \
      EmberOptions converted{};                                        \
      FIELDS(EMBER_TORCH_OPTIONS_COPY_)                                \
      return converted;                                                \
    }                                                                  \
    FIELDS(EMBER_TORCH_OPTIONS_DECLARE_)                               \
  }
