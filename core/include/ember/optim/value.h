#pragma once
// optim::Value: one entry of an optimizer's parameter-group options or per-parameter state
// (the values a Python dict holds there: None, bool, int, float, str, a tuple of floats such
// as Adam's betas, a tensor, a list of tensors). Dict maps names to values, like the dicts of
// torch.optim's param_groups and state.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::optim {

class Value {
 public:
  using Variant = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<double>, Tensor,
                               std::vector<Tensor>>;

  Value() = default;  // None
  Value(std::nullopt_t) {}
  Value(bool v) : v_(v) {}
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  Value(I v) : v_(static_cast<int64_t>(v)) {}
  Value(double v) : v_(v) {}
  Value(float v) : v_(static_cast<double>(v)) {}
  Value(const char* v) : v_(std::string(v)) {}
  Value(std::string v) : v_(std::move(v)) {}
  Value(std::vector<double> v) : v_(std::move(v)) {}
  Value(std::pair<double, double> v) : v_(std::vector<double>{v.first, v.second}) {}
  Value(Tensor v) : v_(std::move(v)) {}
  Value(std::vector<Tensor> v) : v_(std::move(v)) {}
  template <class T>
  Value(const std::optional<T>& v) {
    if (v) *this = Value(*v);
  }

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  // int or float (not bool).
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_double_list() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_tensor_list() const { return std::holds_alternative<std::vector<Tensor>>(v_); }

  bool to_bool() const;
  int64_t to_int() const;        // an int, or a float holding an integer
  double to_double() const;      // an int or a float, or a one-element tensor
  const std::string& to_string() const;
  const std::vector<double>& to_double_list() const;
  std::vector<double>& to_double_list();
  const Tensor& to_tensor() const;
  Tensor& to_tensor();
  const std::vector<Tensor>& to_tensor_list() const;
  std::vector<Tensor>& to_tensor_list();

  // Typed access used by the options structs: double, bool, int64_t, std::string,
  // std::pair<double, double>, std::optional<...> of those (None -> nullopt), Tensor.
  template <class T>
  T as() const;

  // "None", "bool", "int", "float", "str", "list[float]", "Tensor", "list[Tensor]".
  const char* type_name() const;
  const Variant& variant() const { return v_; }
  Variant& variant() { return v_; }

  // Equality of the held values (tensors: same shape, dtype and values).
  friend bool operator==(const Value& a, const Value& b);

 private:
  Variant v_;
};

using Dict = std::map<std::string, Value>;

std::ostream& operator<<(std::ostream& os, const Value& v);

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

template <class T>
T Value::as() const {
  if constexpr (detail::is_optional<T>::value) {
    if (is_none()) return std::nullopt;
    return as<typename T::value_type>();
  } else if constexpr (std::is_same_v<T, double>) {
    return to_double();
  } else if constexpr (std::is_same_v<T, bool>) {
    return to_bool();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return to_int();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return to_string();
  } else if constexpr (std::is_same_v<T, std::pair<double, double>>) {
    const auto& l = to_double_list();
    EMBER_CHECK(l.size() == 2, "optim::Value: expected a pair of floats but got ", l.size(), " values");
    return {l[0], l[1]};
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return to_double_list();
  } else if constexpr (std::is_same_v<T, Tensor>) {
    return to_tensor();
  } else {
    static_assert(sizeof(T) == 0, "optim::Value::as: unsupported type");
  }
}

}  // namespace ember::optim
