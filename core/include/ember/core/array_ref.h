#pragma once
// ArrayRef: a non-owning view of contiguous values that also binds to braced
// lists, so `t.view({2, 3})` and `t.view(sizes_vector)` both work.
// SmallVector: a vector with inline storage, used for sizes and strides so that
// making a tensor handle does not touch the heap in the common case.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace ember {

template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  // Binding to a braced list is safe for the duration of the full expression
  // (a function argument), which is the only way Ember takes ArrayRefs.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(std::initializer_list<T> list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  template <size_t N>
  constexpr ArrayRef(const T (&arr)[N]) : data_(arr), size_(N) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, size_ - start); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }
  friend bool operator==(ArrayRef a, ArrayRef b) { return a.equals(b); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

// Vector of trivially copyable T with N inline slots.
template <class T, size_t N = 6>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T value = T()) { assign(n, value); }
  SmallVector(std::initializer_list<T> list) { assign(list.begin(), list.end()); }
  SmallVector(ArrayRef<T> a) { assign(a.begin(), a.end()); }
  SmallVector(const std::vector<T>& v) { assign(v.data(), v.data() + v.size()); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  operator ArrayRef<T>() const { return ArrayRef<T>(data_, size_); }
  ArrayRef<T> ref() const { return ArrayRef<T>(data_, size_); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T& front() { return data_[0]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* fresh = new T[n];
    if (size_) std::memcpy(fresh, data_, size_ * sizeof(T));
    if (data_ != inline_) delete[] data_;
    data_ = fresh;
    capacity_ = n;
  }
  void resize(size_t n, T value = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void clear() { size_ = 0; }
  void push_back(T v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(size_t pos, T v) {
    push_back(v);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    --size_;
  }
  void assign(size_t n, T value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(const T* first, const T* last) {
    size_t n = static_cast<size_t>(last - first);
    reserve(n);
    if (n) std::memmove(data_, first, n * sizeof(T));
    size_ = n;
  }
  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.ref() == b.ref();
  }

 private:
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    capacity_ = N;
    size_ = 0;
  }
  void steal(SmallVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      capacity_ = N;
      size_ = o.size_;
      if (size_) std::memcpy(inline_, o.inline_, size_ * sizeof(T));
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.capacity_ = N;
    }
    o.size_ = 0;
  }

  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

using DimVector = SmallVector<int64_t, 6>;

template <class T, size_t N>
std::ostream& operator<<(std::ostream& os, const SmallVector<T, N>& v) {
  return os << v.ref();
}

}  // namespace ember
