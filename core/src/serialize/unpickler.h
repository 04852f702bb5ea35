#pragma once
// A restricted unpickler for the pickles torch.save writes (protocols 2-5).
//
// Note [Restricted unpickler]
// Python's pickle is a stack machine whose GLOBAL and REDUCE opcodes import
// and call arbitrary functions; loading an untrusted checkpoint with it runs
// whatever the file says. This one executes nothing:
//  - it builds values in its own arena (strings, lists, tuples, dicts and
//    tensor descriptions; ints, floats, bools and None live inline), so a
//    self-referencing list or a memo trick cannot create ownership cycles;
//  - GLOBAL/STACK_GLOBAL resolve against a fixed whitelist (collections.
//    OrderedDict, torch._utils._rebuild_tensor(_v2), _rebuild_parameter
//    (_with_state), torch.*Storage, and torch.jit._pickle's build_*list and
//    restore_type_tag, which return their argument); in a TorchScript
//    archive also the classes its code/ folder defines; anything else is an
//    error naming it;
//  - REDUCE only "calls" those, checking every argument: a tensor's storage
//    offset, sizes and strides must stay inside its storage;
//  - BINPERSID hands the persistent id to the format (zip or legacy), which
//    returns a storage;
//  - opcodes outside the set torch needs (INST, OBJ, NEWOBJ, EXT*, sets,
//    buffers, text opcodes) are errors, as are stack underflow, a missing
//    MARK, an unknown memo index, lengths past the end of the input and more
//    than kMaxNodes objects;
//  - everything it builds is charged to the load's MemoryBudget (Note
//    [Checkpoint memory budget]): a value the memo references many times is
//    one node, strings are shared with the IValues made from them, and dict
//    indexes refer to the key strings instead of copying them;
//  - strings are hashed once and interned (equal strings become one shared
//    string), so using a string as the key of many dicts costs neither a copy
//    nor a rehash nor a comparison of its characters: the work of a load is
//    linear in the input, however often the memo repeats a long string.
// The caller turns the result into IValues once the storages are loaded.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/serialize/ivalue.h"
#include "serialize/byte_source.h"
#include "serialize/memory_budget.h"

namespace ember::serialize::pickle {

enum class GlobalKind : uint8_t {
  OrderedDict,
  RebuildTensorV2,
  RebuildTensor,
  RebuildParameter,
  RebuildParameterWithState,
  StorageType,  // torch.FloatStorage, ...: the dtype is in Node::dtype
  RebuildQTensor,    // torch._utils._rebuild_qtensor (quantized tensors)
  PerTensorAffine,   // torch.per_tensor_affine (a qscheme argument)
  PerChannelAffine,  // torch.per_channel_affine
  // TorchScript archives only (Note [TorchScript archives] in torch_load.cpp):
  TorchClass,       // a __torch__.* class of the archive's class records: Node::text is its name
  // What libtorch's pickler writes (torch::pickle_save, TorchScript archives):
  JitBuildList,     // torch.jit._pickle.build_{int,double,bool,tensor,generic}list(list) -> list
  JitRestoreTypeTag,  // torch.jit._pickle.restore_type_tag(value, type) -> value
};

// A stack/memo slot: an inline primitive or a reference to an arena node.
struct Value {
  enum class Kind : uint8_t { None, Bool, Int, Float, Ref };
  Kind kind = Kind::None;
  union {
    bool b;
    int64_t i = 0;
    double d;
    uint32_t ref;
  };
};

// Object: an instance of a TorchScript class (NEWOBJ): Node::text is the
// class name, Node::items its BUILD state once set (one value: a dict of
// attributes, or what __getstate__ returned).
enum class NodeKind : uint8_t { String, BigInt, List, Tuple, Dict, Global, Storage, Tensor, Object };

// A quantized tensor's parameters (_rebuild_qtensor's quantizer_params):
// per-tensor (scale, zero_point) or per-channel (scales and zero_points:
// Tensor nodes, axis).
struct QuantParams {
  bool per_channel = false;
  double scale = 1.0;
  int64_t zero_point = 0;
  Value scales, zero_points;
  int64_t axis = 0;
};

struct TensorDesc {
  int32_t storage = -1;  // the loader's storage index
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  bool requires_grad = false;
  std::optional<QuantParams> quant;  // quantized tensors only
};

using detail::HashedKey;
using detail::HashedKeyEq;
using detail::HashedKeyHash;
using detail::SharedString;

// A dict's keys -> pair index. String keys are views of the key nodes'
// shared strings (never modified, alive as long as the arena).
struct DictIndex {
  std::unordered_map<HashedKey, uint32_t, HashedKeyHash, HashedKeyEq> strings;
  std::unordered_map<int64_t, uint32_t> ints;
};

struct Node {
  NodeKind kind = NodeKind::String;
  GlobalKind global = GlobalKind::OrderedDict;
  DType dtype = DType::Float32;  // Global StorageType
  int32_t storage = -1;          // Storage
  // String (shared with the IValue made from it); BigInt: little-endian two's
  // complement bytes.
  std::shared_ptr<const SharedString> text;
  std::vector<Value> items;  // List, Tuple; Dict: key0, value0, key1, value1, ...
  std::unique_ptr<DictIndex> keys;  // Dict
  std::unique_ptr<TensorDesc> tensor;
};

class Unpickler;

// What the checkpoint format supplies.
class Hooks {
 public:
  virtual ~Hooks() = default;
  // BINPERSID: pid is the persistent id tuple's items; returns a storage index.
  virtual int32_t persistent_load(const Unpickler& u, const std::vector<Value>& pid) = 0;
  virtual uint64_t storage_numel(int32_t storage) const = 0;
  virtual DType storage_dtype(int32_t storage) const = 0;
};

class Unpickler {
 public:
  // Objects in the arena (node references are 32-bit); memory is bounded by
  // the budget long before.
  static constexpr size_t kMaxNodes = (size_t(1) << 31) - 1;
  // What an arena node costs the budget (its slot in the deque and the
  // deque's block bookkeeping).
  static constexpr uint64_t kNodeCost = sizeof(Node) + 16;

  // Unpickles the pickle starting at `begin` (reading no further than `end`),
  // charging what it builds to `budget` (released when it is destroyed).
  Unpickler(const ByteSource& src, uint64_t begin, uint64_t end, std::string what, Hooks* hooks,
            MemoryBudget& budget);
  // A TorchScript archive's pickle: GLOBAL may name the classes in `classes`
  // (qualified names, "__torch__.torch.nn.modules.conv.Conv2d"; the set must
  // outlive the unpickler) and torch.jit._pickle's list builders, and NEWOBJ
  // makes objects of those classes. Everything else stays refused.
  void allow_torchscript_classes(const std::unordered_map<std::string, uint32_t>* classes) { classes_ = classes; }
  ~Unpickler();
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;
  // Runs to STOP and returns the result.
  Value run();
  // Offset just after STOP.
  uint64_t position() const { return pos_; }

  const Node& node(uint32_t ref) const { return nodes_[ref]; }
  size_t node_count() const { return nodes_.size(); }
  const Node* node_of(const Value& v) const { return v.kind == Value::Kind::Ref ? &nodes_[v.ref] : nullptr; }
  const std::string& what() const { return what_; }
  // "str", "list", "int", "global torch.FloatStorage", ... for messages.
  std::string describe(const Value& v) const;
  [[noreturn]] void fail(const std::string& message) const;

 private:
  // Input.
  uint8_t read_u8();
  uint64_t read_le(int n);
  std::string read_bytes(uint64_t n);
  std::string read_line();
  // Stack and arena.
  void charge(uint64_t bytes, const char* item);
  template <class T>
  void reserve_more(std::vector<T>& v, size_t extra, const char* item);
  uint32_t add_node(NodeKind kind, uint64_t extra_bytes = 0);
  Value ref(uint32_t r) const;
  Value pop();
  Value& top();
  size_t pop_mark();
  void push(Value v);
  void push_string(std::string s);
  void push_global(const std::string& module, const std::string& name);
  void shrink_stack();
  void memo_put(uint32_t idx, const Value& v);
  const Value* memo_get(uint32_t idx) const;
  void dict_set(uint32_t dict, const Value& key, const Value& value);
  void reduce();
  void build();
  Value rebuild_tensor(const std::vector<Value>& args, bool v2);
  Value rebuild_parameter(const std::vector<Value>& args, bool with_state);
  Value rebuild_qtensor(const std::vector<Value>& args);
  void newobj();
  const Node* expect_node(const Value& v, NodeKind kind, const char* what) const;
  int64_t expect_int(const Value& v, const char* what) const;
  std::vector<int64_t> expect_int_tuple(const Value& v, const char* what);

  const ByteSource& src_;
  uint64_t pos_, end_;
  std::vector<unsigned char> buf_;
  uint64_t buf_start_ = 0;
  std::string what_;
  Hooks* hooks_;
  MemoryBudget& budget_;
  uint64_t charged_ = 0;   // what this unpickler charged to budget_
  std::deque<Node> nodes_;  // a deque: nodes never move, so references stay valid
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  // The memo: indices below memo_.size() (Python writes them 0, 1, 2, ...;
  // unset slots hold kUnset), others in memo_sparse_. memo_count_ is the
  // number of stored entries, MEMOIZE's next index (Python's len(memo)).
  std::vector<Value> memo_;
  std::unordered_map<uint32_t, Value> memo_sparse_;
  size_t memo_count_ = 0;
  // Every distinct string so far (Python's str objects are immutable, so equal
  // strings may be one object): keys of one text are then one pointer.
  std::unordered_map<HashedKey, std::shared_ptr<const SharedString>, HashedKeyHash, HashedKeyEq> strings_;
  uint64_t opcode_offset_ = 0;
  const std::unordered_map<std::string, uint32_t>* classes_ = nullptr;
};

}  // namespace ember::serialize::pickle
