#pragma once
// TensorIterator: the one elementwise engine. It broadcasts the operands,
// applies PyTorch's type promotion, allocates outputs in the layout the inputs
// suggest, orders and coalesces dimensions so the innermost loop is as long and
// as contiguous as possible, and runs a 1-d inner loop in parallel chunks.
// Kernels only supply the inner loop (see kernels/cpu/loops.h).
#include <functional>
#include <optional>

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"
#include "ember/ops/promotion.h"

namespace ember {

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 8;
  // data[i]: pointer to operand i (outputs first); strides[i]: its byte stride
  // along the inner loop; n: number of elements.
  using Loop = std::function<void(char** data, const int64_t* strides, int64_t n)>;

  explicit TensorIterator(const char* op_name) : op_name_(op_name) {}
  // Writes back outputs that are conjugate/negative views if finish() was not called.
  ~TensorIterator();
  TensorIterator(const TensorIterator&) = delete;
  TensorIterator& operator=(const TensorIterator&) = delete;

  // ---- configuration, before build() ----
  // An undefined output is allocated; a defined one is written (out= / in-place).
  TensorIterator& add_output(const Tensor& out);
  TensorIterator& add_input(const Tensor& in);
  // Cast inputs to their common dtype (result_type) before computing. Without
  // it, a given output keeps its own dtype and the kernel converts (copy_).
  TensorIterator& promote_inputs_to_common_dtype(bool v = true) { promote_ = v; return *this; }
  // Integer/bool common dtype becomes the default float dtype (true division, exp...).
  TensorIterator& promote_integer_inputs_to_float(bool v = true) { int_to_float_ = v; return *this; }
  // The dtype computed in, instead of the common one (e.g. for ops with a fixed compute type).
  TensorIterator& compute_dtype(DType t) { forced_compute_dtype_ = t; return *this; }
  // Dtype of allocated outputs, when not the compute dtype (comparisons: bool).
  TensorIterator& output_dtype(DType t) { forced_output_dtype_ = t; return *this; }
  // Output must have the computed shape exactly (in-place ops: no broadcasting of self).
  TensorIterator& is_inplace(bool v = true) { inplace_ = v; return *this; }
  // Reject outputs whose elements share memory (expanded tensors): on by
  // default; off for kernels that write through computed offsets (index_put_).
  TensorIterator& check_mem_overlap(bool v) { check_overlap_ = v; return *this; }
  // Inputs must already share one dtype (no promotion); error names the op.
  TensorIterator& check_all_same_dtype(bool v = true) { same_dtype_ = v; return *this; }
  void build();

  // ---- after build() ----
  const char* op_name() const { return op_name_; }
  int ntensors() const { return static_cast<int>(operands_.size()); }
  int noutputs() const { return noutputs_; }
  int ninputs() const { return ntensors() - noutputs_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  IntArrayRef shape() const { return shape_; }  // innermost dim first
  int64_t numel() const { return numel_; }
  DType common_dtype() const { return common_dtype_; }
  DType dtype(int arg) const { return operands_[arg].dtype; }
  DType input_dtype(int i = 0) const { return operands_[noutputs_ + i].dtype; }
  Device device() const { return device_; }
  const int64_t* strides(int arg) const { return operands_[arg].stride_bytes.data(); }
  char* data(int arg) const { return operands_[arg].data; }
  const Tensor& tensor(int arg) const { return operands_[arg].tensor; }
  // The output as the caller sees it (after any cast back into a given out tensor).
  Tensor output(int i = 0) const;
  // True when operand `arg` has stride 0 everywhere (a broadcast scalar).
  bool is_scalar(int arg) const;
  bool is_contiguous() const;  // every operand is contiguous along one coalesced dim

  void for_each(const Loop& loop, int64_t grain_size = kGrainSize);
  void serial_for_each(const Loop& loop, int64_t begin, int64_t end) const;
  // Copies outputs computed in a temporary dtype into the tensors the caller
  // gave, and writes outputs that are conjugate/negative views back through
  // their bits (Note [Conjugate bit] in ops/conj_views.cpp).
  void finish();

 private:
  struct Operand {
    Tensor tensor;         // what the kernel reads/writes
    Tensor original;       // out tensor given by the caller when a temporary is used
    Tensor lazy_target;    // an output with conj/neg bits, written back by finish()
    DimVector stride_bytes;
    char* data = nullptr;
    DType dtype = DType::Float32;
    bool is_output = false;
    bool will_allocate = false;
  };
  void compute_shape();
  void compute_types();
  void compute_strides();
  void reorder_dimensions();
  void allocate_outputs();
  void coalesce_dimensions();
  void resolve_lazy_bits();
  void write_back_lazy_outputs();

  const char* op_name_;
  std::vector<Operand> operands_;
  int noutputs_ = 0;
  bool promote_ = true, int_to_float_ = false, inplace_ = false, same_dtype_ = false;
  bool check_overlap_ = true;
  std::optional<DType> forced_compute_dtype_, forced_output_dtype_;
  DimVector shape_;  // broadcast shape; after reorder/coalesce, innermost first
  DimVector perm_;   // perm_[i]: logical dim of iteration dim i
  int64_t numel_ = 0;
  DType common_dtype_ = DType::Float32;
  Device device_ = kCPU;
  bool has_coalesced_ = false;
};


}  // namespace ember
