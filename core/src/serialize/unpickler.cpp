#include "serialize/unpickler.h"

#include <bit>
#include <cstring>
#include <sstream>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"

namespace ember::serialize::pickle {

namespace {

// Pickle opcodes (Lib/pickletools.py) that the restricted unpickler runs.
enum Op : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2',
  BININT = 'J', BININT1 = 'K', BININT2 = 'M', NONE = 'N', BINPERSID = 'Q', REDUCE = 'R',
  BINSTRING = 'T', SHORT_BINSTRING = 'U', BINUNICODE = 'X', APPEND = 'a', BUILD = 'b',
  GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}', APPENDS = 'e', BINGET = 'h', LONG_BINGET = 'j',
  LIST = 'l', EMPTY_LIST = ']', BINPUT = 'q', LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't',
  EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G', BINBYTES = 'B', SHORT_BINBYTES = 'C',
  PROTO = 0x80, TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89,
  LONG1 = 0x8a, LONG4 = 0x8b, SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e,
  STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95, NEWOBJ = 0x81,
};

struct GlobalEntry {
  const char* module;
  const char* name;
  GlobalKind kind;
  DType dtype;
};
constexpr GlobalEntry kGlobals[] = {
    {"collections", "OrderedDict", GlobalKind::OrderedDict, kFloat32},
    {"torch._utils", "_rebuild_tensor_v2", GlobalKind::RebuildTensorV2, kFloat32},
    {"torch._utils", "_rebuild_tensor", GlobalKind::RebuildTensor, kFloat32},
    {"torch._utils", "_rebuild_parameter", GlobalKind::RebuildParameter, kFloat32},
    {"torch._utils", "_rebuild_parameter_with_state", GlobalKind::RebuildParameterWithState, kFloat32},
    {"torch", "FloatStorage", GlobalKind::StorageType, kFloat32},
    {"torch", "DoubleStorage", GlobalKind::StorageType, kFloat64},
    {"torch", "HalfStorage", GlobalKind::StorageType, kFloat16},
    {"torch", "BFloat16Storage", GlobalKind::StorageType, kBFloat16},
    {"torch", "LongStorage", GlobalKind::StorageType, kInt64},
    {"torch", "IntStorage", GlobalKind::StorageType, kInt32},
    {"torch", "ShortStorage", GlobalKind::StorageType, kInt16},
    {"torch", "CharStorage", GlobalKind::StorageType, kInt8},
    {"torch", "ByteStorage", GlobalKind::StorageType, kUInt8},
    {"torch", "BoolStorage", GlobalKind::StorageType, kBool},
    {"torch", "ComplexFloatStorage", GlobalKind::StorageType, kComplex64},
    {"torch", "ComplexDoubleStorage", GlobalKind::StorageType, kComplex128},
    // A storage saved without a dtype holds bytes.
    {"torch", "UntypedStorage", GlobalKind::StorageType, kUInt8},
    // Quantized tensors (docs/quantization.md).
    {"torch._utils", "_rebuild_qtensor", GlobalKind::RebuildQTensor, kFloat32},
    {"torch", "QUInt8Storage", GlobalKind::StorageType, kQUInt8},
    {"torch", "QInt8Storage", GlobalKind::StorageType, kQInt8},
    {"torch", "QInt32Storage", GlobalKind::StorageType, kQInt32},
    {"torch", "per_tensor_affine", GlobalKind::PerTensorAffine, kFloat32},
    {"torch", "per_channel_affine", GlobalKind::PerChannelAffine, kFloat32},
};

const char* global_name(GlobalKind k) {
  switch (k) {
    case GlobalKind::OrderedDict: return "collections.OrderedDict";
    case GlobalKind::RebuildTensorV2: return "torch._utils._rebuild_tensor_v2";
    case GlobalKind::RebuildTensor: return "torch._utils._rebuild_tensor";
    case GlobalKind::RebuildParameter: return "torch._utils._rebuild_parameter";
    case GlobalKind::RebuildParameterWithState: return "torch._utils._rebuild_parameter_with_state";
    case GlobalKind::StorageType: return "a torch storage type";
    case GlobalKind::RebuildQTensor: return "torch._utils._rebuild_qtensor";
    case GlobalKind::PerTensorAffine: return "torch.per_tensor_affine";
    case GlobalKind::PerChannelAffine: return "torch.per_channel_affine";
    case GlobalKind::TorchClass: return "a TorchScript class";
    case GlobalKind::JitBuildList: return "torch.jit._pickle.build_*list";
    case GlobalKind::JitRestoreTypeTag: return "torch.jit._pickle.restore_type_tag";
  }
  return "?";
}

// A memo slot that was never stored.
constexpr uint32_t kUnsetRef = ~uint32_t{0};
Value unset_value() {
  Value v;
  v.kind = Value::Kind::Ref;
  v.ref = kUnsetRef;
  return v;
}
bool is_unset(const Value& v) { return v.kind == Value::Kind::Ref && v.ref == kUnsetRef; }

// What a std::string of n characters costs beyond its own object: the heap
// buffer of a string too long for the short-string buffer.
uint64_t string_heap_bytes(uint64_t n) { return n > 15 ? n + 1 + kHeapBlockOverhead : 0; }
// A shared string: make_shared's block (control block + SharedString) and its buffer.
uint64_t shared_string_bytes(uint64_t n) {
  return 16 + sizeof(SharedString) + kHeapBlockOverhead + string_heap_bytes(n);
}
// Printable form of a name from the file for error messages.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 200)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 200) out += "...";
  return out;
}

}  // namespace

Unpickler::Unpickler(const ByteSource& src, uint64_t begin, uint64_t end, std::string what, Hooks* hooks,
                     MemoryBudget& budget)
    : src_(src), pos_(begin), end_(end), buf_start_(begin), what_(std::move(what)), hooks_(hooks),
      budget_(budget) {}

Unpickler::~Unpickler() { budget_.release(charged_); }

void Unpickler::charge(uint64_t bytes, const char* item) {
  budget_.charge(bytes, item);
  charged_ += bytes;
}

template <class T>
void Unpickler::reserve_more(std::vector<T>& v, size_t extra, const char* item) {
  const uint64_t before = budget_.used();
  budget_.reserve_more(v, extra, item);
  charged_ += budget_.used() - before;  // grows: the new buffer minus the old one
}

void Unpickler::fail(const std::string& message) const {
  EMBER_FAIL(what_, ": ", message, " (pickle opcode at byte ", opcode_offset_, ")");
}

uint8_t Unpickler::read_u8() {
  if (pos_ < buf_start_ || pos_ >= buf_start_ + buf_.size()) {
    if (pos_ >= end_) fail("unexpected end of the pickle (truncated file?)");
    const uint64_t n = std::min<uint64_t>(end_ - pos_, 64 * 1024);
    if (buf_.capacity() < n) charge(n + kHeapBlockOverhead, "the pickle's read buffer");
    buf_.resize(static_cast<size_t>(n));
    src_.read(pos_, buf_.data(), buf_.size(), "pickle");
    buf_start_ = pos_;
  }
  return buf_[static_cast<size_t>(pos_++ - buf_start_)];
}

uint64_t Unpickler::read_le(int n) {
  uint64_t v = 0;
  for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(read_u8()) << (8 * k);
  return v;
}

std::string Unpickler::read_bytes(uint64_t n) {
  if (n > end_ - pos_)
    fail("length " + std::to_string(n) + " runs past the end of the pickle (" +
         std::to_string(end_ - pos_) + " bytes left)");
  charge(shared_string_bytes(n), "a string");
  std::string out(static_cast<size_t>(n), '\0');
  size_t done = 0;
  // Take what the buffer holds, then read the rest directly.
  if (pos_ >= buf_start_ && pos_ < buf_start_ + buf_.size()) {
    done = std::min<size_t>(out.size(), static_cast<size_t>(buf_start_ + buf_.size() - pos_));
    std::memcpy(out.data(), buf_.data() + (pos_ - buf_start_), done);
  }
  if (done < out.size()) src_.read(pos_ + done, out.data() + done, out.size() - done, "pickle");
  pos_ += n;
  return out;
}

std::string Unpickler::read_line() {
  std::string s;
  while (true) {
    const char c = static_cast<char>(read_u8());
    if (c == '\n') return s;
    if (s.size() >= 1024) fail("GLOBAL name longer than 1024 bytes");
    s += c;
  }
}

uint32_t Unpickler::add_node(NodeKind kind, uint64_t extra_bytes) {
  if (nodes_.size() >= kMaxNodes) fail("too many objects (more than " + std::to_string(kMaxNodes) + ")");
  charge(kNodeCost + extra_bytes, "an object");
  nodes_.emplace_back().kind = kind;
  return static_cast<uint32_t>(nodes_.size() - 1);
}

Value Unpickler::ref(uint32_t r) const {
  Value v;
  v.kind = Value::Kind::Ref;
  v.ref = r;
  return v;
}

void Unpickler::push(Value v) {
  if (stack_.size() == stack_.capacity()) reserve_more(stack_, 1, "the pickle stack");
  stack_.push_back(v);
}

void Unpickler::shrink_stack() {
  const uint64_t before = budget_.used();
  budget_.shrink(stack_, "the pickle stack");
  charged_ -= std::min(charged_, before - std::min(before, budget_.used()));
}

void Unpickler::memo_put(uint32_t idx, const Value& v) {
  if (idx < memo_.size()) {
    memo_count_ += is_unset(memo_[idx]);
    memo_[idx] = v;
    return;
  }
  // Dense indices (Python's 0, 1, 2, ...) go to the vector, far ones to the map.
  if (idx - memo_.size() < 1024 + memo_.size()) {
    reserve_more(memo_, idx + 1 - memo_.size(), "the pickle memo");
    memo_.resize(idx + 1, unset_value());
    memo_[idx] = v;
    ++memo_count_;
    return;
  }
  auto it = memo_sparse_.find(idx);
  if (it != memo_sparse_.end()) {
    it->second = v;
    return;
  }
  charge(kHashEntryBytes, "the pickle memo");
  memo_sparse_.emplace(idx, v);
  ++memo_count_;
}

const Value* Unpickler::memo_get(uint32_t idx) const {
  if (idx < memo_.size()) return is_unset(memo_[idx]) ? nullptr : &memo_[idx];
  auto it = memo_sparse_.find(idx);
  return it == memo_sparse_.end() ? nullptr : &it->second;
}

Value Unpickler::pop() {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
    fail("stack underflow");
  Value v = stack_.back();
  stack_.pop_back();
  return v;
}

Value& Unpickler::top() {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
    fail("stack underflow");
  return stack_.back();
}

size_t Unpickler::pop_mark() {
  if (marks_.empty()) fail("no MARK on the stack");
  const size_t m = marks_.back();
  marks_.pop_back();
  return m;
}

void Unpickler::push_string(std::string s) {
  // read_bytes charged the shared string; an equal one seen before is used
  // instead (interned), and the charge given back.
  const uint64_t bytes = shared_string_bytes(s.size());
  auto text = std::make_shared<const SharedString>(std::move(s));
  if (auto it = strings_.find(detail::hashed_key(*text)); it != strings_.end()) {
    text = it->second;
    budget_.release(bytes);
    charged_ -= std::min(charged_, bytes);
  } else {
    charge(kHashEntryBytes, "a string");
    strings_.emplace(detail::hashed_key(*text), text);
  }
  const uint32_t r = add_node(NodeKind::String);
  nodes_[r].text = std::move(text);
  push(ref(r));
}

void Unpickler::push_global(const std::string& module, const std::string& name) {
  if (classes_) {
    // Note [TorchScript archives]: the archive's own classes, by the names
    // its code/ records define, and the list builders of torch.jit._pickle.
    if (module == "__torch__" || module.starts_with("__torch__.")) {
      const std::string qualified = module + "." + name;
      if (classes_->count(qualified)) {
        const uint32_t r = add_node(NodeKind::Global);
        nodes_[r].global = GlobalKind::TorchClass;
        charge(shared_string_bytes(qualified.size()), "a class name");
        nodes_[r].text = std::make_shared<const SharedString>(qualified);
        push(ref(r));
        return;
      }
      fail("global '" + printable(qualified) + "' is not a class of this archive (its code/ folder defines no such class)");
    }
  }
  {
    // libtorch's pickler (torch::pickle_save, TorchScript archives) wraps
    // typed lists and dicts in these; each returns its first argument.
    if (module == "torch.jit._pickle") {
      static constexpr const char* kBuilders[] = {"build_intlist", "build_doublelist", "build_boollist",
                                                  "build_tensorlist", "build_genericlist"};
      for (const char* b : kBuilders) {
        if (name == b) {
          const uint32_t r = add_node(NodeKind::Global);
          nodes_[r].global = GlobalKind::JitBuildList;
          push(ref(r));
          return;
        }
      }
      if (name == "restore_type_tag") {
        const uint32_t r = add_node(NodeKind::Global);
        nodes_[r].global = GlobalKind::JitRestoreTypeTag;
        push(ref(r));
        return;
      }
    }
  }
  if (module == "torch") {
    // torch dtypes as values (a quantized Linear's state_dict entry
    // `_packed_params.dtype` is torch.qint8; torch.dtype pickles by its
    // name): loaded as the str "torch.<name>", nothing executed.
    static constexpr const char* kDTypes[] = {"qint8",   "quint8",  "qint32",   "quint4x2", "float16",   "float32",
                                              "float64", "bfloat16", "int8",    "uint8",    "int16",     "int32",
                                              "int64",   "bool",    "complex64", "complex128"};
    for (const char* d : kDTypes) {
      if (name == d) {
        const std::string text = "torch." + name;
        charge(shared_string_bytes(text.size()), "a dtype name");
        push_string(text);
        return;
      }
    }
  }
  for (const auto& g : kGlobals) {
    if (module == g.module && name == g.name) {
      const uint32_t r = add_node(NodeKind::Global);
      nodes_[r].global = g.kind;
      nodes_[r].dtype = g.dtype;
      push(ref(r));
      return;
    }
  }
  fail("global '" + printable(module) + "." + printable(name) +
       "' is not allowed: only tensors, containers and primitives can be loaded");
}

std::string Unpickler::describe(const Value& v) const {
  switch (v.kind) {
    case Value::Kind::None: return "None";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::Ref: break;
  }
  const Node& n = nodes_[v.ref];
  switch (n.kind) {
    case NodeKind::String: return "str";
    case NodeKind::BigInt: return "int";
    case NodeKind::List: return "list";
    case NodeKind::Tuple: return "tuple";
    case NodeKind::Dict: return "dict";
    case NodeKind::Global:
      if (n.global == GlobalKind::TorchClass) return "class " + n.text->str();
      return std::string("global ") + global_name(n.global);
    case NodeKind::Object: return "object of class " + n.text->str();
    case NodeKind::Storage: return "storage";
    case NodeKind::Tensor: return "Tensor";
  }
  return "?";
}

const Node* Unpickler::expect_node(const Value& v, NodeKind kind, const char* what) const {
  const Node* n = node_of(v);
  if (!n || n->kind != kind) fail(std::string(what) + " has type " + describe(v));
  return n;
}

int64_t Unpickler::expect_int(const Value& v, const char* what) const {
  if (v.kind != Value::Kind::Int) fail(std::string(what) + " must be an int, got " + describe(v));
  return v.i;
}

std::vector<int64_t> Unpickler::expect_int_tuple(const Value& v, const char* what) {
  const Node* n = node_of(v);
  if (!n || (n->kind != NodeKind::Tuple && n->kind != NodeKind::List))
    fail(std::string(what) + " must be a tuple of ints, got " + describe(v));
  if (n->items.size() > 64) fail("tensor has more than 64 dimensions");
  charge(n->items.size() * sizeof(int64_t) + kHeapBlockOverhead, "a tensor's sizes and strides");
  std::vector<int64_t> out;
  out.reserve(n->items.size());
  for (const Value& x : n->items) out.push_back(expect_int(x, what));
  return out;
}

void Unpickler::dict_set(uint32_t dict, const Value& key, const Value& value) {
  const Node* key_node = node_of(key);
  if (key.kind != Value::Kind::Int && !(key_node && key_node->kind == NodeKind::String))
    fail("dict keys must be str or int, got " + describe(key));
  Node& d = nodes_[dict];
  if (!d.keys) {
    charge(sizeof(DictIndex) + kHeapBlockOverhead, "a dict");
    d.keys = std::make_unique<DictIndex>();
  }
  const uint32_t slot = static_cast<uint32_t>(d.items.size() / 2);
  // Python: a later value for an existing key replaces it in place.
  if (key.kind == Value::Kind::Int) {
    if (auto it = d.keys->ints.find(key.i); it != d.keys->ints.end()) {
      d.items[2 * size_t(it->second) + 1] = value;
      return;
    }
  } else if (auto it = d.keys->strings.find(detail::hashed_key(*key_node->text)); it != d.keys->strings.end()) {
    d.items[2 * size_t(it->second) + 1] = value;
    return;
  }
  charge(kHashEntryBytes, "a dict");
  reserve_more(d.items, 2, "a dict");
  if (key.kind == Value::Kind::Int) d.keys->ints.emplace(key.i, slot);
  else d.keys->strings.emplace(detail::hashed_key(*key_node->text), slot);
  d.items.push_back(key);
  d.items.push_back(value);
}

Value Unpickler::rebuild_tensor(const std::vector<Value>& args, bool v2) {
  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  //                    backward_hooks[, metadata]); _rebuild_tensor: the first four.
  if (v2 ? (args.size() != 6 && args.size() != 7) : args.size() != 4)
    fail(std::string(v2 ? "_rebuild_tensor_v2" : "_rebuild_tensor") + " got " +
         std::to_string(args.size()) + " arguments");
  const Node* storage = expect_node(args[0], NodeKind::Storage, "the tensor's storage");
  charge(sizeof(TensorDesc) + kHeapBlockOverhead, "a tensor");
  auto desc = std::make_unique<TensorDesc>();
  desc->storage = storage->storage;
  desc->offset = expect_int(args[1], "storage_offset");
  desc->sizes = expect_int_tuple(args[2], "size");
  desc->strides = expect_int_tuple(args[3], "stride");
  if (v2) {
    if (args[4].kind != Value::Kind::Bool) fail("requires_grad must be a bool, got " + describe(args[4]));
    desc->requires_grad = args[4].b;
    // backward_hooks (an OrderedDict; hooks themselves would be disallowed
    // globals) and metadata are ignored.
  }
  if (desc->sizes.size() != desc->strides.size())
    fail("tensor size has " + std::to_string(desc->sizes.size()) + " dimensions but stride has " +
         std::to_string(desc->strides.size()));
  if (desc->offset < 0) fail("negative storage offset");
  // Every element must lie inside the storage: offset + sum((size-1)*stride) < numel.
  const uint64_t numel = hooks_->storage_numel(desc->storage);
  bool empty = false;
  uint64_t count = 1;
  for (int64_t s : desc->sizes) {
    if (s < 0) fail("negative tensor size");
    if (s == 0) empty = true;
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(std::max<int64_t>(s, 1)), &count) ||
        count > static_cast<uint64_t>(INT64_MAX))
      fail("tensor size overflows");
  }
  for (int64_t st : desc->strides)
    if (st < 0) fail("negative tensor stride");
  if (!empty) {
    // Also every byte stride (Note [Checked sizes]): a size-1 dim may carry any
    // stride in PyTorch, but Ember's kernels step in bytes.
    const uint64_t itemsize = element_size(hooks_->storage_dtype(desc->storage));
    uint64_t last = static_cast<uint64_t>(desc->offset);
    for (size_t d = 0; d < desc->sizes.size(); ++d) {
      uint64_t span, stride_bytes;
      if (__builtin_mul_overflow(static_cast<uint64_t>(desc->sizes[d] - 1),
                                 static_cast<uint64_t>(desc->strides[d]), &span) ||
          __builtin_add_overflow(last, span, &last) ||
          __builtin_mul_overflow(static_cast<uint64_t>(desc->strides[d]), itemsize, &stride_bytes) ||
          stride_bytes > static_cast<uint64_t>(INT64_MAX))
        fail(ember::detail::concat("tensor extent overflows (sizes ", IntArrayRef(desc->sizes), ", strides ",
                            IntArrayRef(desc->strides), ")"));
    }
    if (last >= numel)
      fail("tensor (offset " + std::to_string(desc->offset) + ", reaching element " +
           std::to_string(last) + ") runs past the end of its storage of " + std::to_string(numel) +
           " elements");
  } else if (static_cast<uint64_t>(desc->offset) > numel) {
    fail("storage offset " + std::to_string(desc->offset) + " past the end of a storage of " +
         std::to_string(numel) + " elements");
  }
  if (desc->requires_grad && !is_floating_point(hooks_->storage_dtype(desc->storage)) &&
      !is_complex(hooks_->storage_dtype(desc->storage)))
    fail("only floating point and complex tensors can require grad");
  const uint32_t r = add_node(NodeKind::Tensor);
  nodes_[r].tensor = std::move(desc);
  return ref(r);
}

Value Unpickler::rebuild_parameter(const std::vector<Value>& args, bool with_state) {
  // _rebuild_parameter(data, requires_grad, backward_hooks[, state])
  if (args.size() != (with_state ? 4u : 3u))
    fail("_rebuild_parameter got " + std::to_string(args.size()) + " arguments");
  const Node* data = expect_node(args[0], NodeKind::Tensor, "a Parameter's data");
  if (args[1].kind != Value::Kind::Bool) fail("requires_grad must be a bool, got " + describe(args[1]));
  if (args[1].b && !is_floating_point(hooks_->storage_dtype(data->tensor->storage)) &&
      !is_complex(hooks_->storage_dtype(data->tensor->storage)))
    fail("only floating point and complex tensors can require grad");
  charge(sizeof(TensorDesc) + 2 * (data->tensor->sizes.size() * sizeof(int64_t) + kHeapBlockOverhead) +
             kHeapBlockOverhead,
         "a tensor");
  auto desc = std::make_unique<TensorDesc>(*data->tensor);
  desc->requires_grad = args[1].b;
  const uint32_t r = add_node(NodeKind::Tensor);
  nodes_[r].tensor = std::move(desc);
  return ref(r);
}

Value Unpickler::rebuild_qtensor(const std::vector<Value>& args) {
  // _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params,
  //                  requires_grad, backward_hooks): the geometry is checked
  // as _rebuild_tensor_v2's; quantizer_params is (torch.per_tensor_affine,
  // scale, zero_point) or (torch.per_channel_affine, scales, zero_points, axis).
  if (args.size() != 7) fail("_rebuild_qtensor got " + std::to_string(args.size()) + " arguments");
  const Node* storage = expect_node(args[0], NodeKind::Storage, "the tensor's storage");
  if (!is_quantized(hooks_->storage_dtype(storage->storage)))
    fail("_rebuild_qtensor: the storage holds " + std::string(dtype_name(hooks_->storage_dtype(storage->storage))) +
         ", not a quantized dtype");
  const Value tensor = rebuild_tensor({args[0], args[1], args[2], args[3], args[5], args[6]}, true);
  TensorDesc& desc = *nodes_[tensor.ref].tensor;
  if (desc.requires_grad) fail("a quantized tensor cannot require grad");
  const Node* params = expect_node(args[4], NodeKind::Tuple, "quantizer_params");
  const std::vector<Value>& p = params->items;
  const Node* scheme = p.empty() ? nullptr : node_of(p[0]);
  if (!scheme || scheme->kind != NodeKind::Global ||
      (scheme->global != GlobalKind::PerTensorAffine && scheme->global != GlobalKind::PerChannelAffine))
    fail("quantizer_params must start with torch.per_tensor_affine or torch.per_channel_affine");
  QuantParams q;
  if (scheme->global == GlobalKind::PerTensorAffine) {
    if (p.size() != 3) fail("per_tensor_affine quantizer_params need (scheme, scale, zero_point)");
    if (p[1].kind != Value::Kind::Float && p[1].kind != Value::Kind::Int) fail("scale must be a number");
    q.scale = p[1].kind == Value::Kind::Float ? p[1].d : static_cast<double>(p[1].i);
    q.zero_point = expect_int(p[2], "zero_point");
  } else {
    if (p.size() != 4) fail("per_channel_affine quantizer_params need (scheme, scales, zero_points, axis)");
    q.per_channel = true;
    expect_node(p[1], NodeKind::Tensor, "per-channel scales");
    expect_node(p[2], NodeKind::Tensor, "per-channel zero_points");
    q.scales = p[1];
    q.zero_points = p[2];
    q.axis = expect_int(p[3], "axis");
    if (q.axis < 0 || q.axis >= static_cast<int64_t>(desc.sizes.size()))
      fail("per-channel axis " + std::to_string(q.axis) + " out of range for a " +
           std::to_string(desc.sizes.size()) + "-d tensor");
  }
  desc.quant = q;
  return tensor;
}

void Unpickler::reduce() {
  const Value args_v = pop();
  const Value callable = pop();
  const Node* args = expect_node(args_v, NodeKind::Tuple, "REDUCE arguments");
  const Node* g = node_of(callable);
  if (!g || g->kind != NodeKind::Global) fail("REDUCE on a " + describe(callable) + " (not callable)");
  const std::vector<Value>& a = args->items;  // arena nodes never move (a deque)
  switch (g->global) {
    case GlobalKind::OrderedDict:
      if (!a.empty()) fail("collections.OrderedDict() with arguments is not supported");
      push(ref(add_node(NodeKind::Dict)));
      return;
    case GlobalKind::RebuildTensorV2: push(rebuild_tensor(a, true)); return;
    case GlobalKind::RebuildTensor: push(rebuild_tensor(a, false)); return;
    case GlobalKind::RebuildParameter: push(rebuild_parameter(a, false)); return;
    case GlobalKind::RebuildParameterWithState: push(rebuild_parameter(a, true)); return;
    case GlobalKind::StorageType: fail("torch storage types cannot be called");
    case GlobalKind::RebuildQTensor: push(rebuild_qtensor(a)); return;
    case GlobalKind::PerTensorAffine:
    case GlobalKind::PerChannelAffine: fail(std::string(global_name(g->global)) + " cannot be called");
    case GlobalKind::TorchClass: fail("TorchScript class " + g->text->str() + " is called with REDUCE (only NEWOBJ makes objects)");
    case GlobalKind::JitBuildList: {
      // build_*list(list): the list itself (its elements were pickled as they are).
      if (a.size() != 1) fail("torch.jit._pickle.build_*list got " + std::to_string(a.size()) + " arguments");
      expect_node(a[0], NodeKind::List, "the argument of torch.jit._pickle.build_*list");
      push(a[0]);
      return;
    }
    case GlobalKind::JitRestoreTypeTag:
      // restore_type_tag(value, type_str): the value; the type tag only informs TorchScript.
      if (a.size() != 2) fail("torch.jit._pickle.restore_type_tag got " + std::to_string(a.size()) + " arguments");
      push(a[0]);
      return;
  }
}

void Unpickler::newobj() {
  // NEWOBJ cls args: cls.__new__(cls, *args). Only a TorchScript class of the
  // archive, with no arguments (what torch.jit writes); the object gets its
  // attributes from the BUILD that follows.
  const Value args_v = pop();
  const Value cls = pop();
  const Node* g = node_of(cls);
  if (!g || g->kind != NodeKind::Global || g->global != GlobalKind::TorchClass)
    fail("NEWOBJ of a " + describe(cls) + " (only TorchScript classes of the archive can be instantiated)");
  const Node* args = expect_node(args_v, NodeKind::Tuple, "NEWOBJ arguments");
  if (!args->items.empty()) fail("NEWOBJ of class " + g->text->str() + " with arguments");
  std::shared_ptr<const SharedString> name = g->text;
  const uint32_t r = add_node(NodeKind::Object);
  nodes_[r].text = std::move(name);
  push(ref(r));
}

void Unpickler::build() {
  // BUILD sets an object's state: torch uses it for the attributes of an
  // OrderedDict (state_dict()._metadata) and of Parameters. The state is
  // dropped; anything else is refused.
  const Value state = pop();
  const Node* obj = node_of(top());
  if (obj && obj->kind == NodeKind::Object) {
    // A TorchScript object's state: its attribute dict, or the value its
    // __getstate__ returned (kept as it is, never passed to any code).
    if (!obj->items.empty()) fail("object of class " + obj->text->str() + " is built twice");
    auto& items = nodes_[top().ref].items;
    reserve_more(items, 1, "an object");
    items.push_back(state);
    return;
  }
  if (!obj || (obj->kind != NodeKind::Dict && obj->kind != NodeKind::Tensor))
    fail("BUILD on a " + describe(top()) + " is not allowed");
}

Value Unpickler::run() {
  while (true) {
    opcode_offset_ = pos_;
    const uint8_t op = read_u8();
    switch (op) {
      case PROTO: {
        const uint8_t v = read_u8();
        if (v > 5) fail("unsupported pickle protocol " + std::to_string(v));
        break;
      }
      case FRAME: {
        const uint64_t n = read_le(8);
        if (n > end_ - pos_) fail("frame length runs past the end of the pickle");
        break;
      }
      case STOP: {
        if (!marks_.empty()) fail("MARK left open at STOP");
        if (stack_.size() != 1) fail("STOP with " + std::to_string(stack_.size()) + " values on the stack");
        return stack_.back();
      }
      case MARK:
        reserve_more(marks_, 1, "the pickle's marks");
        marks_.push_back(stack_.size());
        break;
      case POP: pop(); break;
      case POP_MARK:
        stack_.resize(pop_mark());
        shrink_stack();
        break;
      case DUP: {
        const Value v = top();
        push(v);
        break;
      }
      case NONE: push(Value{}); break;
      case NEWTRUE:
      case NEWFALSE: {
        Value v;
        v.kind = Value::Kind::Bool;
        v.b = op == NEWTRUE;
        push(v);
        break;
      }
      case BININT:
      case BININT1:
      case BININT2: {
        Value v;
        v.kind = Value::Kind::Int;
        if (op == BININT) v.i = static_cast<int32_t>(static_cast<uint32_t>(read_le(4)));
        else v.i = static_cast<int64_t>(read_le(op == BININT1 ? 1 : 2));
        push(v);
        break;
      }
      case LONG1:
      case LONG4: {
        const uint64_t n = op == LONG1 ? read_u8() : read_le(4);
        if (n > 4096) fail("integer of " + std::to_string(n) + " bytes is too large");
        if (n <= 8) {
          uint64_t u = 0;
          uint8_t last = 0;
          for (size_t k = 0; k < n; ++k) {
            last = read_u8();
            u |= static_cast<uint64_t>(last) << (8 * k);
          }
          if (n > 0 && n < 8 && (last & 0x80)) u |= ~uint64_t(0) << (8 * n);
          Value v;
          v.kind = Value::Kind::Int;
          v.i = static_cast<int64_t>(u);
          push(v);
        } else {
          std::string bytes = read_bytes(n);
          const uint32_t r = add_node(NodeKind::BigInt);
          nodes_[r].text = std::make_shared<const SharedString>(std::move(bytes));
          push(ref(r));
        }
        break;
      }
      case BINFLOAT: {
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | read_u8();  // big-endian
        Value v;
        v.kind = Value::Kind::Float;
        v.d = std::bit_cast<double>(bits);
        push(v);
        break;
      }
      case SHORT_BINUNICODE:
      case SHORT_BINSTRING:
      case SHORT_BINBYTES: push_string(read_bytes(read_u8())); break;
      case BINUNICODE:
      case BINBYTES: push_string(read_bytes(read_le(4))); break;
      case BINSTRING: {
        const int32_t n = static_cast<int32_t>(static_cast<uint32_t>(read_le(4)));
        if (n < 0) fail("negative string length");
        push_string(read_bytes(static_cast<uint64_t>(n)));
        break;
      }
      case BINUNICODE8:
      case BINBYTES8: push_string(read_bytes(read_le(8))); break;
      case EMPTY_LIST: push(ref(add_node(NodeKind::List))); break;
      case EMPTY_TUPLE: push(ref(add_node(NodeKind::Tuple))); break;
      case EMPTY_DICT: push(ref(add_node(NodeKind::Dict))); break;
      case LIST:
      case TUPLE: {
        const size_t m = pop_mark();
        const uint32_t r = add_node(op == LIST ? NodeKind::List : NodeKind::Tuple);
        reserve_more(nodes_[r].items, stack_.size() - m, op == LIST ? "a list" : "a tuple");
        nodes_[r].items.assign(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
        stack_.resize(m);
        shrink_stack();
        push(ref(r));
        break;
      }
      case TUPLE1:
      case TUPLE2:
      case TUPLE3: {
        const size_t n = op - TUPLE1 + 1u;
        Value items[3];
        for (size_t k = n; k-- > 0;) items[k] = pop();
        const uint32_t r = add_node(NodeKind::Tuple);
        reserve_more(nodes_[r].items, n, "a tuple");
        nodes_[r].items.assign(items, items + n);
        push(ref(r));
        break;
      }
      case DICT: {
        const size_t m = pop_mark();
        if ((stack_.size() - m) % 2) fail("DICT with an odd number of items");
        const uint32_t r = add_node(NodeKind::Dict);
        for (size_t k = m; k < stack_.size(); k += 2) dict_set(r, stack_[k], stack_[k + 1]);
        stack_.resize(m);
        shrink_stack();
        push(ref(r));
        break;
      }
      case APPEND: {
        const Value v = pop();
        const Node* list = node_of(top());
        if (!list || list->kind != NodeKind::List) fail("APPEND to a " + describe(top()));
        auto& items = nodes_[top().ref].items;
        reserve_more(items, 1, "a list");
        items.push_back(v);
        break;
      }
      case APPENDS: {
        const size_t m = pop_mark();
        if (m == 0 || (!marks_.empty() && m <= marks_.back())) fail("stack underflow");
        const Value target = stack_[m - 1];
        const Node* list = node_of(target);
        if (!list || list->kind != NodeKind::List) fail("APPENDS to a " + describe(target));
        auto& items = nodes_[target.ref].items;
        reserve_more(items, stack_.size() - m, "a list");
        items.insert(items.end(), stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
        stack_.resize(m);
        shrink_stack();
        break;
      }
      case SETITEM: {
        const Value v = pop();
        const Value k = pop();
        const Node* d = node_of(top());
        if (!d || d->kind != NodeKind::Dict) fail("SETITEM on a " + describe(top()));
        dict_set(top().ref, k, v);
        break;
      }
      case SETITEMS: {
        const size_t m = pop_mark();
        if (m == 0 || (!marks_.empty() && m <= marks_.back())) fail("stack underflow");
        if ((stack_.size() - m) % 2) fail("SETITEMS with an odd number of items");
        const Value target = stack_[m - 1];
        const Node* d = node_of(target);
        if (!d || d->kind != NodeKind::Dict) fail("SETITEMS on a " + describe(target));
        for (size_t k = m; k < stack_.size(); k += 2) dict_set(target.ref, stack_[k], stack_[k + 1]);
        stack_.resize(m);
        shrink_stack();
        break;
      }
      case BINPUT:
      case LONG_BINPUT:
      case MEMOIZE: {
        if (op == MEMOIZE && memo_count_ >= kUnsetRef) fail("memo is full");
        const uint32_t idx = op == BINPUT        ? read_u8()
                             : op == LONG_BINPUT ? static_cast<uint32_t>(read_le(4))
                                                 : static_cast<uint32_t>(memo_count_);
        memo_put(idx, top());
        break;
      }
      case BINGET:
      case LONG_BINGET: {
        const uint32_t idx = op == BINGET ? read_u8() : static_cast<uint32_t>(read_le(4));
        const Value* v = memo_get(idx);
        if (!v) fail("memo index " + std::to_string(idx) + " was never stored");
        push(*v);
        break;
      }
      case GLOBAL: {
        std::string module = read_line();
        std::string name = read_line();
        push_global(module, name);
        break;
      }
      case STACK_GLOBAL: {
        const Value name = pop();
        const Value module = pop();
        const Node* m = expect_node(module, NodeKind::String, "STACK_GLOBAL module");
        const Node* n = expect_node(name, NodeKind::String, "STACK_GLOBAL name");
        push_global(m->text->str(), n->text->str());  // arena nodes never move
        break;
      }
      case REDUCE: reduce(); break;
      case NEWOBJ:
        if (!classes_) fail("pickle opcode 0x81 is not allowed");
        newobj();
        break;
      case BUILD: build(); break;
      case BINPERSID: {
        const Value pid = pop();
        const Node* t = node_of(pid);
        if (!t || t->kind != NodeKind::Tuple) fail("persistent id must be a tuple, got " + describe(pid));
        const int32_t storage = hooks_->persistent_load(*this, t->items);  // arena nodes never move
        const uint32_t r = add_node(NodeKind::Storage);
        nodes_[r].storage = storage;
        push(ref(r));
        break;
      }
      default: {
        std::ostringstream ss;
        ss << "pickle opcode 0x" << std::hex << int(op);
        if (op >= 0x20 && op < 0x7f) ss << " ('" << static_cast<char>(op) << "')";
        ss << " is not allowed";
        fail(ss.str());
      }
    }
  }
}

}  // namespace ember::serialize::pickle
