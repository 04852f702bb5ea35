// Note [Loading torch.save files]
// Zip format (PyTorch >= 1.6): an uncompressed zip whose entries share one
// top folder <archive>/: data.pkl (the object, storages as persistent ids
// ('storage', torch.FloatStorage, key, location, numel)), data/<key> (each
// storage's raw little-endian bytes), version, and from PyTorch 2.1 byteorder.
// Storages are read when their persistent id is met: the entry must hold
// exactly numel * itemsize bytes, so allocation is bounded by the file.
//
// Legacy format (_use_new_zipfile_serialization=False): five pickles in a row
// (magic number 0x1950a86a20f9469cfc6c, protocol version 1001, sys_info with
// little_endian, the object with persistent ids ('storage', type, root_key,
// location, numel, view_metadata), the list of storage keys), then for each
// listed key an 8-byte little-endian element count and the raw data. The
// object's storages are declared before their data, so they are only
// described (dtype, numel) while unpickling and allocated when their data is
// read, after checking the recorded count against the declaration and the
// remaining file size.
//
// The unpickled tree (serialize/unpickler.h) is converted to IValues last:
// shared objects stay shared (strings too: an IValue str shares the arena
// node's text), cycles and nesting deeper than kMaxDepth are errors. The whole
// load runs within one MemoryBudget (Note [Checkpoint memory budget]): the
// storages, the unpickler's arena and the IValue tree are charged to it, and
// running out of memory anyway is an ember::Error naming the file. Tensors are rebuilt over the loaded storages with their saved
// offset, sizes and strides (checked by the unpickler to fit the storage), so
// views saved together share memory again.
//
// Note [TorchScript archives]
// torch.jit.save and libtorch's torch::save(module) write the same zip with
// more in it: code/<module path>.py (each class's source), constants.pkl
// (tensor constants of the code) and a data.pkl whose objects are instances
// of the archive's classes: GLOBAL '__torch__.<path> <Class>', NEWOBJ, then
// BUILD with a dict of the object's attributes (parameters, buffers,
// submodules, plain attributes such as `training`), or with what the class's
// __getstate__ returned. Which attributes are parameters and which buffers is
// written nowhere in the pickle (a parameter is a tensor that requires grad,
// but so may be a plain tensor attribute): each class's code file says it in
// `__parameters__ = [...]` and `__buffers__ = [...]` lines. The loader reads
// those lines (script_classes.h) and nothing else of the code, lets the
// unpickler accept exactly the classes they define (plus torch.jit._pickle's
// list builders, which only return their argument), and then walks the
// objects: a module's parameters and buffers by attribute path, recursing
// into attributes that are objects of module classes. Objects whose state is
// not an attribute dict (__getstate__) contribute no tensors; a module class
// that declares parameters but has no attribute dict is an error.
#include "ember/serialize/torch_load.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "ember/core/allocator.h"
#include "ember/core/error.h"
#include "ember/core/out_of_memory.h"
#include "serialize/byte_source.h"
#include "serialize/memory_budget.h"
#include "serialize/script_classes.h"
#include "serialize/unpickler.h"
#include "ember/core/quantizer.h"
#include "serialize/zip_reader.h"

namespace ember::serialize {

namespace {

using pickle::Node;
using pickle::NodeKind;
using pickle::Unpickler;
using pickle::Value;

constexpr int kMaxDepth = 1000;
// A tensor's share of memory besides its data: TensorImpl, its storage
// handle, sizes and strides beyond the inline ones, autograd metadata.
constexpr uint64_t kTensorBytes = 512;
constexpr unsigned char kLegacyMagic[10] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

using Key = std::shared_ptr<const pickle::SharedString>;
using KeyIndex = std::unordered_map<pickle::HashedKey, int32_t, pickle::HashedKeyHash, pickle::HashedKeyEq>;

struct StorageEntry {
  Key key;  // the pickle's string, shared (hashed once)
  DType dtype;
  uint64_t numel;
  Storage data;         // roots, once loaded
  int32_t root = -1;    // legacy views: the root storage ...
  uint64_t offset = 0;  // ... and the element offset into it
};

void byteswap(void* data, size_t nbytes, DType dtype) {
  const size_t k = is_complex(dtype) ? element_size(dtype) / 2 : element_size(dtype);
  if (k == 1) return;
  auto* p = static_cast<unsigned char*>(data);
  for (size_t i = 0; i + k <= nbytes; i += k) std::reverse(p + i, p + i + k);
}

class Loader : public pickle::Hooks {
 public:
  Loader(const ByteSource& src, std::string what) : src_(src), what_(what), budget_(std::move(what), src.size()) {}

  IValue load() {
    return run_within(budget_, [&] { return load_any(); });
  }

  // The value (a TorchScript archive's attribute tree) and whether it is a TorchScript archive.
  IValue load_telling_script(bool* is_script) {
    IValue v = load();
    if (is_script) *is_script = script_found_;
    return v;
  }

  // A TorchScript archive's modules; `required`: anything else is an error
  // (otherwise *is_script says whether it was one, and the plain value is returned).
  IValue load_script(ScriptModuleState& out, bool required, bool* is_script = nullptr) {
    script_out_ = &out;
    IValue v = load();
    if (is_script) *is_script = script_found_;
    EMBER_CHECK(script_found_ || !required, what_,
                ": not a TorchScript archive (no <archive>/code/ folder): use load_torch for torch.save files");
    return v;
  }

 private:
  IValue load_any() {
    unsigned char head[4] = {0, 0, 0, 0};
    const size_t n = static_cast<size_t>(std::min<uint64_t>(src_.size(), 4));
    src_.read(0, head, n, "file header");
    if (n == 4 && std::memcmp(head, "PK\x03\x04", 4) == 0) return load_zip();
    if (n >= 2 && head[0] == 0x80 && head[1] == 0x02) return load_legacy();
    if (src_.size() >= 262 && src_.read_string(257, 5, "tar header") == "ustar")
      EMBER_FAIL(what_, ": tar checkpoints (PyTorch < 0.4) are not supported");
    EMBER_FAIL(what_, ": not a torch.save file (neither a zip archive nor a legacy pickle)");
  }


 public:
  // ---- pickle::Hooks ----
  int32_t persistent_load(const Unpickler& u, const std::vector<Value>& pid) override {
    if (legacy_header_) u.fail("persistent id in a header pickle");
    if (pid.empty()) u.fail("empty persistent id");
    const Node* tag = u.node_of(pid[0]);
    if (!tag || tag->kind != NodeKind::String || tag->text->str() != "storage")
      u.fail("persistent id must start with 'storage'");
    return zip_ ? zip_storage(u, pid) : legacy_storage(u, pid);
  }
  uint64_t storage_numel(int32_t s) const override { return storages_.at(static_cast<size_t>(s)).numel; }
  DType storage_dtype(int32_t s) const override { return storages_.at(static_cast<size_t>(s)).dtype; }

 private:
  // ---- persistent ids ----
  static const Key& expect_string(const Unpickler& u, const Value& v, const char* what) {
    const Node* n = u.node_of(v);
    if (!n || n->kind != NodeKind::String) u.fail(std::string(what) + " must be a str, got " + u.describe(v));
    return n->text;
  }
  static DType expect_storage_type(const Unpickler& u, const Value& v) {
    const Node* n = u.node_of(v);
    if (!n || n->kind != NodeKind::Global || n->global != pickle::GlobalKind::StorageType)
      u.fail("storage type must be a torch storage class, got " + u.describe(v));
    return n->dtype;
  }
  static uint64_t expect_count(const Unpickler& u, const Value& v, const char* what) {
    if (v.kind != Value::Kind::Int || v.i < 0) u.fail(std::string(what) + " must be a non-negative int");
    return static_cast<uint64_t>(v.i);
  }
  uint64_t checked_nbytes(const Unpickler& u, uint64_t numel, DType dtype) const {
    uint64_t nbytes;
    if (__builtin_mul_overflow(numel, element_size(dtype), &nbytes) || nbytes > src_.size())
      u.fail("storage of " + std::to_string(numel) + " elements is larger than the file");
    return nbytes;
  }
  int32_t existing(const Unpickler& u, const Key& key, DType dtype, uint64_t numel) const {
    auto it = by_key_.find(serialize::detail::hashed_key(*key));
    if (it == by_key_.end()) return -1;
    const StorageEntry& e = storages_[static_cast<size_t>(it->second)];
    if (e.dtype != dtype || e.numel != numel)
      u.fail("storage '" + key->str() + "' is declared twice with different types or sizes");
    return it->second;
  }
  // Adds e to the table and to `index` under its key (shared, not copied).
  int32_t add(StorageEntry e, KeyIndex& index) {
    budget_.charge(sizeof(StorageEntry) + kHashEntryBytes, "a storage entry");
    budget_.reserve_more(storages_, 1, "the storage table");
    storages_.push_back(std::move(e));
    const int32_t s = static_cast<int32_t>(storages_.size() - 1);
    index.emplace(serialize::detail::hashed_key(*storages_.back().key), s);
    return s;
  }
  // A storage's memory, charged to the budget; the allocator's out-of-memory
  // error becomes one naming the file and the storage.
  Storage allocate_storage(uint64_t nbytes, const std::string& key) {
    budget_.charge(tensor_data_bytes(nbytes), "a tensor storage");
    try {
      return make_intrusive<StorageImpl>(static_cast<size_t>(nbytes), cpu_allocator());
    } catch (const Error& e) {
      ember::detail::take_allocation_failure();
      EMBER_FAIL(what_, ": out of memory while allocating storage '", key, "' (", nbytes, " bytes): ", e.what());
    } catch (const std::bad_alloc&) {
      EMBER_FAIL(what_, ": out of memory (std::bad_alloc) while allocating storage '", key, "' (", nbytes,
                 " bytes)");
    }
  }

  int32_t zip_storage(const Unpickler& u, const std::vector<Value>& pid) {
    // ('storage', storage_type, key, location, numel)
    if (pid.size() != 5) u.fail("zip persistent id must have 5 fields, got " + std::to_string(pid.size()));
    const DType dtype = expect_storage_type(u, pid[1]);
    const Key& key_text = expect_string(u, pid[2], "storage key");
    expect_string(u, pid[3], "storage location");
    const uint64_t numel = expect_count(u, pid[4], "storage size");
    if (int32_t s = existing(u, key_text, dtype, numel); s >= 0) return s;
    const std::string& key = key_text->str();
    const uint64_t nbytes = checked_nbytes(u, numel, dtype);
    const ZipReader::Entry* entry = zip_->find(prefix_ + "data/" + key);
    if (!entry) u.fail("storage '" + key + "' has no entry " + prefix_ + "data/" + key);
    if (entry->size != nbytes)
      u.fail("storage '" + key + "' of " + std::to_string(numel) + " " + std::string(dtype_name(dtype)) +
             " elements needs " + std::to_string(nbytes) + " bytes but its entry holds " +
             std::to_string(entry->size));
    Storage data = allocate_storage(nbytes, key);
    zip_->read_into(*entry, data->data());
    if (big_endian_) byteswap(data->data(), static_cast<size_t>(nbytes), dtype);
    return add(StorageEntry{key_text, dtype, numel, std::move(data)}, by_key_);
  }

  int32_t legacy_storage(const Unpickler& u, const std::vector<Value>& pid) {
    // ('storage', storage_type, root_key, location, numel, view_metadata)
    if (pid.size() != 6) u.fail("legacy persistent id must have 6 fields, got " + std::to_string(pid.size()));
    const DType dtype = expect_storage_type(u, pid[1]);
    const Key& key = expect_string(u, pid[2], "storage key");
    expect_string(u, pid[3], "storage location");
    const uint64_t numel = expect_count(u, pid[4], "storage size");
    checked_nbytes(u, numel, dtype);
    int32_t root = existing(u, key, dtype, numel);
    if (root < 0) root = add(StorageEntry{key, dtype, numel, {}}, by_key_);
    if (pid[5].kind == Value::Kind::None) return root;
    // view_metadata = (view_key, offset, view_size), in elements of the root.
    const Node* view = u.node_of(pid[5]);
    if (!view || view->kind != NodeKind::Tuple || view->items.size() != 3)
      u.fail("storage view metadata must be a 3-tuple");
    const Key& view_key = expect_string(u, view->items[0], "view key");
    const uint64_t offset = expect_count(u, view->items[1], "view offset");
    const uint64_t size = expect_count(u, view->items[2], "view size");
    if (offset > numel || size > numel - offset)
      u.fail("storage view '" + view_key->str() + "' exceeds its storage");
    auto it = views_.find(serialize::detail::hashed_key(*view_key));
    if (it != views_.end()) {
      const StorageEntry& e = storages_[static_cast<size_t>(it->second)];
      if (e.root != root || e.offset != offset || e.numel != size)
        u.fail("storage view '" + view_key->str() + "' is declared twice differently");
      return it->second;
    }
    return add(StorageEntry{view_key, dtype, size, {}, root, offset}, views_);
  }

  // ---- formats ----
  IValue load_zip() {
    ZipReader zip(src_, what_, &budget_);
    zip_ = &zip;
    const ZipReader::Entry* pkl = nullptr;
    for (const auto& e : zip.entries()) {
      const size_t slash = e.name.find('/');
      if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
        if (pkl) EMBER_FAIL(what_, ": several data.pkl entries ('", pkl->name, "', '", e.name, "')");
        pkl = &e;
      }
    }
    EMBER_CHECK(pkl, what_, ": no <archive>/data.pkl entry: not a torch.save zip archive");
    prefix_ = pkl->name.substr(0, pkl->name.size() - 8);  // keeps the trailing '/'
    if (const ZipReader::Entry* bo = zip.find(prefix_ + "byteorder")) {
      EMBER_CHECK(bo->size <= 16, what_, ": bad byteorder entry");
      const std::string order = zip.read(*bo);
      EMBER_CHECK(order == "little" || order == "big", what_, ": unknown byteorder '", order, "'");
      big_endian_ = order == "big";
    }
    read_script_classes(zip);
    // The pickle is read from the file as it runs (CRC-checked first), not
    // copied into memory.
    const uint64_t begin = zip.verified_data_offset(*pkl);
    Unpickler u(src_, begin, begin + pkl->size, what_ + ": " + pkl->name, this, budget_);
    if (!classes_.empty()) u.allow_torchscript_classes(&class_index_);
    const Value root = u.run();
    if (script_found_ && script_out_) {
      extract_module(u, root, "", 0);
      return IValue();
    }
    return convert(u, root);
  }

  // Note [TorchScript archives]: the class records of <archive>/code/.
  void read_script_classes(const ZipReader& zip) {
    const std::string code = prefix_ + "code/";
    for (const auto& e : zip.entries()) {
      if (!e.name.starts_with(code)) continue;
      script_found_ = true;
      const std::string module = script_module_name(std::string_view(e.name).substr(code.size()));
      if (module.empty()) continue;  // debug_pkl files
      const std::string text = zip.read_text(e, uint64_t{1} << 30);  // charged to the budget
      parse_script_classes(text, module, what_ + ": " + e.name, classes_);
      budget_.release(e.size + 1 + kHeapBlockOverhead);
    }
    for (size_t i = 0; i < classes_.size(); ++i) {
      budget_.charge(kHashEntryBytes + classes_[i].name.size(), "the class records");
      class_index_.emplace(classes_[i].name, static_cast<uint32_t>(i));
    }
  }

  // Adds the parameters and buffers of the module object v (and of its
  // submodules) under `prefix`.
  void extract_module(const Unpickler& u, const Value& v, const std::string& prefix, int depth) {
    const Node* obj = u.node_of(v);
    const std::string where = prefix.empty() ? "the archive's root" : "'" + prefix.substr(0, prefix.size() - 1) + "'";
    EMBER_CHECK(obj && obj->kind == NodeKind::Object, what_, ": ", where, " is a ", u.describe(v),
                ", not a TorchScript module");
    EMBER_CHECK(depth <= kMaxDepth, what_, ": modules nested more than ", kMaxDepth, " levels deep");
    const ScriptClassRecord& cls = classes_[class_index_.at(obj->text->str())];
    EMBER_CHECK(cls.is_module, what_, ": ", where, " is an object of class ", cls.name, ", which is not a Module");
    EMBER_CHECK(!obj->items.empty(), what_, ": module ", where, " (class ", cls.name, ") has no state (no BUILD)");
    const Node* attrs = u.node_of(obj->items[0]);
    if (!attrs || attrs->kind != NodeKind::Dict) {
      EMBER_CHECK(cls.parameters.empty() && cls.buffers.empty(), what_, ": module ", where, " (class ", cls.name,
                  ") declares parameters or buffers but its state is a ", u.describe(obj->items[0]),
                  " (a __getstate__), not its attributes");
      return;
    }
    auto find = [&](const std::string& name) -> const Value* {
      if (!attrs->keys) return nullptr;
      auto it = attrs->keys->strings.find(serialize::detail::hashed_key(name));
      return it == attrs->keys->strings.end() ? nullptr : &attrs->items[2 * size_t(it->second) + 1];
    };
    auto add = [&](const std::vector<std::string>& names, std::vector<std::string>& list, const char* kind) {
      for (const std::string& name : names) {
        const Value* value = find(name);
        EMBER_CHECK(value, what_, ": module ", where, " (class ", cls.name, ") declares ", kind, " '", name,
                    "' but has no such attribute");
        if (value->kind == Value::Kind::None) continue;  // an absent Optional[Tensor] (bias=False)
        const Node* t = u.node_of(*value);
        EMBER_CHECK(t && t->kind == NodeKind::Tensor, what_, ": ", kind, " '", prefix + name, "' is a ",
                    u.describe(*value), ", not a Tensor");
        budget_.charge(kTensorBytes + 2 * t->tensor->sizes.size() * sizeof(int64_t) + prefix.size() + name.size(),
                       "a tensor");
        Tensor tensor = make_tensor(u, *t->tensor);
        if (tensor.requires_grad()) tensor.requires_grad_(false);  // as module.state_dict() returns them
        script_out_->state_dict.insert(prefix + name, std::move(tensor));
        list.push_back(prefix + name);
      }
    };
    add(cls.parameters, script_out_->parameters, "parameter");
    add(cls.buffers, script_out_->buffers, "buffer");
    for (size_t k = 0; k + 1 < attrs->items.size(); k += 2) {
      const Node* child = u.node_of(attrs->items[k + 1]);
      if (!child || child->kind != NodeKind::Object) continue;
      if (!classes_[class_index_.at(child->text->str())].is_module) continue;  // a TorchScript class, not a module
      const Node* key = u.node_of(attrs->items[k]);
      EMBER_CHECK(key && key->kind == NodeKind::String, what_, ": module ", where, " has a non-str attribute name");
      extract_module(u, attrs->items[k + 1], prefix + key->text->str() + ".", depth + 1);
    }
  }

  IValue load_legacy() {
    uint64_t pos = 0;
    auto next = [&](const char* name) {
      auto u = std::make_unique<Unpickler>(src_, pos, src_.size(), what_ + ": " + name, this, budget_);
      return u;
    };
    // 1. magic number
    {
      auto u = next("magic number");
      legacy_header_ = true;
      const Value v = u->run();
      const Node* n = u->node_of(v);
      EMBER_CHECK(n && n->kind == NodeKind::BigInt && n->text->str().size() == sizeof(kLegacyMagic) &&
                      std::memcmp(n->text->str().data(), kLegacyMagic, sizeof(kLegacyMagic)) == 0,
                  what_, ": bad magic number: not a torch.save file");
      pos = u->position();
    }
    // 2. protocol version
    {
      auto u = next("protocol version");
      const Value v = u->run();
      EMBER_CHECK(v.kind == Value::Kind::Int && v.i == 1001, what_, ": unsupported legacy protocol version");
      pos = u->position();
    }
    // 3. sys_info
    {
      auto u = next("sys_info");
      const IValue info = convert(*u, u->run());
      EMBER_CHECK(info.is_dict(), what_, ": sys_info is not a dict");
      if (const IValue* le = info.find("little_endian")) {
        EMBER_CHECK(le->is_bool(), what_, ": sys_info little_endian is not a bool");
        big_endian_ = !le->to_bool();
      }
      pos = u->position();
    }
    legacy_header_ = false;
    // 4. the object
    auto obj = next("data");
    const Value root = obj->run();
    pos = obj->position();
    // 5. storage keys, then the data.
    IValue list;  // the keys' strings, shared (not copied)
    {
      legacy_header_ = true;
      auto u = next("storage keys");
      list = convert(*u, u->run());
      EMBER_CHECK(list.is_list() && !list.is_tuple(), what_, ": storage key list is a ", list.type_name());
      for (const IValue& k : list.to_list()) EMBER_CHECK(k.is_string(), what_, ": storage key is a ", k.type_name());
      pos = u->position();
      legacy_header_ = false;
    }
    for (const IValue& key_value : list.to_list()) {
      const std::string& key = key_value.to_string();
      auto it = by_key_.find(serialize::detail::hashed_key(key));
      EMBER_CHECK(it != by_key_.end(), what_, ": data for unknown storage '", key, "'");
      StorageEntry& e = storages_[static_cast<size_t>(it->second)];
      EMBER_CHECK(!e.data, what_, ": storage '", key, "' is listed twice");
      unsigned char count[8];
      src_.read(pos, count, 8, "storage size");
      uint64_t recorded = 0;
      for (int k = 7; k >= 0; --k) recorded = (recorded << 8) | count[k];
      if (big_endian_) recorded = __builtin_bswap64(recorded);
      EMBER_CHECK(recorded == e.numel, what_, ": storage '", key, "' records ", recorded,
                  " elements but was declared with ", e.numel);
      pos += 8;
      const uint64_t nbytes = e.numel * element_size(e.dtype);  // <= file size (checked)
      EMBER_CHECK(src_.contains(pos, nbytes), what_, ": truncated file: storage '", key, "' needs ",
                  nbytes, " bytes at ", pos, " but the file has ", src_.size());
      e.data = allocate_storage(nbytes, key);
      src_.read(pos, e.data->data(), static_cast<size_t>(nbytes), "storage data");
      if (big_endian_) byteswap(e.data->data(), static_cast<size_t>(nbytes), e.dtype);
      pos += nbytes;
    }
    for (const StorageEntry& e : storages_)
      EMBER_CHECK(e.root >= 0 || e.data, what_, ": storage '", e.key->str(), "' has no data in the file");
    return convert(*obj, root);
  }

  // ---- conversion to IValue ----
  // The IValue tree of root. Its memory stays charged (the caller keeps it);
  // the table of converted nodes is given back afterwards.
  IValue convert(const Unpickler& u, const Value& root) {
    const uint64_t table = u.node_count() * (sizeof(IValue) + 1) + 2 * kHeapBlockOverhead;
    budget_.charge(table, "the table of converted objects");
    done_.assign(u.node_count(), IValue());
    state_.assign(u.node_count(), kTodo);
    IValue out = convert_value(u, root, 0);
    done_ = {};
    state_ = {};
    budget_.release(table);
    return out;
  }

  IValue convert_value(const Unpickler& u, const Value& v, int depth) {
    switch (v.kind) {
      case Value::Kind::None: return IValue();
      case Value::Kind::Bool: return IValue(v.b);
      case Value::Kind::Int: return IValue(v.i);
      case Value::Kind::Float: return IValue(v.d);
      case Value::Kind::Ref: break;
    }
    EMBER_CHECK(depth <= kMaxDepth, u.what(), ": objects nested more than ", kMaxDepth, " levels deep");
    const Node& n = u.node(v.ref);
    if (state_[v.ref] != kTodo) {
      EMBER_CHECK(state_[v.ref] == kDone, u.what(), ": recursive structure (an object contains itself)");
      return done_[v.ref];  // shared: a copy of an IValue copies no elements or characters
    }
    state_[v.ref] = kInProgress;
    IValue out;
    switch (n.kind) {
      case NodeKind::String: out = IValue::shared_string(n.text); break;
      case NodeKind::BigInt:
        EMBER_FAIL(u.what(), ": integer of ", n.text->str().size(), " bytes does not fit in 64 bits");
      case NodeKind::List:
      case NodeKind::Tuple: {
        // The elements' buffer, and make_shared's block holding the vector.
        budget_.charge(n.items.size() * sizeof(IValue) + sizeof(std::vector<IValue>) + 16 + 2 * kHeapBlockOverhead,
                       n.kind == NodeKind::List ? "a list" : "a tuple");
        std::vector<IValue> items;
        items.reserve(n.items.size());
        for (const Value& x : n.items) items.push_back(convert_value(u, x, depth + 1));
        out = n.kind == NodeKind::List ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
        break;
      }
      case NodeKind::Dict: {
        // The items' buffer, the index (a hash entry per key) and make_shared's block.
        const size_t pairs = n.items.size() / 2;
        budget_.charge(pairs * (sizeof(IDict::Item) + kHashEntryBytes) + sizeof(IDict) + 16 + 3 * kHeapBlockOverhead,
                       "a dict");
        IDict d;
        d.reserve(pairs);
        for (size_t k = 0; k + 1 < n.items.size(); k += 2)
          d.insert(convert_value(u, n.items[k], depth + 1), convert_value(u, n.items[k + 1], depth + 1));
        out = IValue::dict(std::move(d));
        break;
      }
      case NodeKind::Global:
        EMBER_FAIL(u.what(), ": a bare ", u.describe(v), " cannot be loaded (only its results can)");
      case NodeKind::Storage:
        EMBER_FAIL(u.what(), ": a bare storage cannot be loaded (only tensors)");
      case NodeKind::Object:
        // Note [TorchScript archives]: an object is its attribute dict (or
        // its __getstate__ value); an object never built is an empty dict.
        if (n.items.empty()) {
          out = IValue::dict(IDict());
          break;
        }
        out = convert_value(u, n.items[0], depth + 1);
        break;
      case NodeKind::Tensor:
        budget_.charge(kTensorBytes + 2 * n.tensor->sizes.size() * sizeof(int64_t), "a tensor");
        out = IValue(make_tensor(u, *n.tensor));
        break;
    }
    done_[v.ref] = out;
    state_[v.ref] = kDone;
    return out;
  }

  Tensor make_tensor(const Unpickler& u, const pickle::TensorDesc& d) {
    const StorageEntry* e = &storages_.at(static_cast<size_t>(d.storage));
    int64_t offset = d.offset;
    if (e->root >= 0) {
      offset += static_cast<int64_t>(e->offset);
      e = &storages_.at(static_cast<size_t>(e->root));
    }
    EMBER_CHECK(e->data, what_, ": storage '", e->key->str(), "' was never loaded");
    Tensor t(make_intrusive<TensorImpl>(e->data, e->dtype, d.sizes, d.strides, offset));
    if (d.requires_grad) t.requires_grad_(true);
    if (is_quantized(e->dtype)) set_quantizer(u, t, d);
    return t;
  }

  // A quantized tensor takes its _rebuild_qtensor parameters, checked as
  // quantize_per_tensor / quantize_per_channel check theirs; its storage
  // must have been rebuilt by _rebuild_qtensor.
  void set_quantizer(const Unpickler& u, const Tensor& t, const pickle::TensorDesc& d) {
    EMBER_CHECK(d.quant.has_value(), what_, ": a ", t.dtype(),
                " storage used by a plain tensor (quantized tensors come from _rebuild_qtensor)");
    EMBER_CHECK(t.dtype() != kQUInt4x2, what_, ": quint4x2 tensors are not supported by the loader");
    const pickle::QuantParams& q = *d.quant;
    const std::string who = what_ + ": quantized tensor";
    if (!q.per_channel) {
      t.impl()->set_quantizer(Quantizer::per_tensor_affine(t.dtype(), q.scale, q.zero_point, who.c_str()));
      return;
    }
    const Tensor scales = tensor_of(u, q.scales), zero_points = tensor_of(u, q.zero_points);
    EMBER_CHECK(scales.dim() == 1 && scales.numel() == t.size(q.axis), what_, ": per-channel scales of sizes ",
                scales.sizes(), " for an axis of size ", t.size(q.axis));
    t.impl()->set_quantizer(Quantizer::per_channel_affine(t.dtype(), scales, zero_points, q.axis, who.c_str()));
  }

  Tensor tensor_of(const Unpickler& u, const pickle::Value& v) {
    return make_tensor(u, *u.node_of(v)->tensor);
  }

  const ByteSource& src_;
  std::string what_;
  MemoryBudget budget_;
  const ZipReader* zip_ = nullptr;
  std::string prefix_;
  bool big_endian_ = false;
  bool legacy_header_ = false;
  // TorchScript archives: the class records of code/ and the output.
  std::vector<ScriptClassRecord> classes_;
  std::unordered_map<std::string, uint32_t> class_index_;
  bool script_found_ = false;
  ScriptModuleState* script_out_ = nullptr;
  std::vector<StorageEntry> storages_;
  KeyIndex by_key_, views_;  // keys are views of the entries' shared strings
  // Conversion state per arena node: its IValue once converted.
  enum : uint8_t { kTodo, kInProgress, kDone };
  std::vector<IValue> done_;
  std::vector<uint8_t> state_;
};

}  // namespace

IValue load_torch(const std::string& path) {
  FileSource src(path);
  return Loader(src, "load_torch: " + path).load();
}

IValue load_torch(const std::string& path, bool* is_torchscript) {
  FileSource src(path);
  return Loader(src, "load_torch: " + path).load_telling_script(is_torchscript);
}

bool is_torch_file(const std::string& path) {
  FileSource src(path);
  // A safetensors file starts with its header's length (little-endian, at
  // most 100 MB): it cannot start with the legacy pickle's PROTO 2, LONG1 10
  // (a length of 176 MB), nor with "PK\3\4" followed by a nonzero byte.
  unsigned char head[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(src.size(), 8));
  src.read(0, head, n, "file header");
  const bool zip = n == 8 && std::memcmp(head, "PK\x03\x04", 4) == 0 && (head[4] | head[5] | head[6] | head[7]) != 0;
  const bool legacy = n >= 4 && std::memcmp(head, "\x80\x02\x8a\x0a", 4) == 0;
  return zip || legacy;
}

IValue load_torch_bytes(const void* data, size_t size) {
  MemorySource src(data, size);
  return Loader(src, "load_torch: <memory>").load();
}

IValue load_torch_bytes(const void* data, size_t size, bool* is_torchscript) {
  MemorySource src(data, size);
  return Loader(src, "load_torch: <memory>").load_telling_script(is_torchscript);
}

StateDict to_state_dict(const IValue& v) {
  EMBER_CHECK(v.is_dict(), "to_state_dict: expected a dict of tensors, got a ", v.type_name());
  StateDict out;
  for (const auto& [k, t] : v.to_dict()) {
    EMBER_CHECK(k.is_string(), "to_state_dict: key ", k, " is not a str");
    EMBER_CHECK(t.is_tensor(), "to_state_dict: value of '", k.to_string(), "' is a ", t.type_name(),
                ", not a Tensor");
    out.insert(k.to_string(), t.to_tensor());
  }
  return out;
}

StateDict load_torch_state_dict(const std::string& path) {
  FileSource src(path);
  ScriptModuleState script;
  bool is_script = false;
  IValue v = Loader(src, "load_torch: " + path).load_script(script, false, &is_script);
  return is_script ? std::move(script.state_dict) : to_state_dict(v);
}

ScriptModuleState load_torchscript(const std::string& path) {
  FileSource src(path);
  ScriptModuleState out;
  Loader(src, "load_torchscript: " + path).load_script(out, true);
  return out;
}

ScriptModuleState load_torchscript_bytes(const void* data, size_t size) {
  MemorySource src(data, size);
  ScriptModuleState out;
  Loader(src, "load_torchscript: <memory>").load_script(out, true);
  return out;
}

}  // namespace ember::serialize
