// Note [Writing torch.save files]
// save_torch writes what torch.save (PyTorch 1.13, _use_new_zipfile_
// serialization=True) writes for the same objects, byte for byte:
//  - a zip (serialize/zip_writer.h, Note [Zip records as torch.save writes
//    them]) with the records <archive>/data.pkl, then <archive>/data/<key> for
//    each storage in the lexicographic order of the keys (torch sorts the key
//    strings: "0", "1", "10", "2"), then <archive>/version = "3\n";
//  - data.pkl: a protocol-2 pickle (serialize/pickler.h, Note [Pickler memo])
//    in which a tensor is REDUCE(torch._utils._rebuild_tensor_v2, (storage,
//    storage_offset, size, stride, requires_grad, OrderedDict())) and its
//    storage the persistent id ('storage', torch.<T>Storage, key, 'cpu',
//    numel) written through BINPERSID; keys number the storages "0", "1", ...
//    in the order they are first met, so tensors over one storage (views)
//    name one record;
//  - a dict is EMPTY_DICT + SETITEM(S), an OrderedDict (a StateDict) is
//    REDUCE(collections.OrderedDict, ()) + SETITEM(S), lists EMPTY_LIST +
//    APPEND(S), in batches of 1000 as CPython's pickler does.
// The pickle uses only the opcodes and globals of torch.load(weights_only=
// True) of PyTorch 1.13 plus BINFLOAT (which that version's restricted
// unpickler lacks: a file with floats, like an optimizer's state, needs
// PyTorch >= 2.0 or weights_only=False there; torch.save's own files are the
// same).
#include "ember/serialize/torch_save.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <cstring>
#include <fstream>
#include <map>
#include <unordered_map>

#include "ember/core/error.h"
#include "serialize/pickler.h"
#include "serialize/zip_writer.h"

namespace ember {

namespace serialize {

std::string archive_name_of(const std::string& path) {
  // libtorch's PyTorchStreamWriter: the file's base name up to its last '.'.
  const size_t slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (const size_t dot = base.find_last_of('.'); dot != std::string::npos) base.resize(dot);
  return base.empty() ? "archive" : base;
}

namespace {

// Where in the value an entry sits, for error messages: "['state'][0]['exp_avg']".
struct PathGuard {
  std::vector<std::string>& path;
  PathGuard(std::vector<std::string>& p, std::string piece) : path(p) { path.push_back(std::move(piece)); }
  ~PathGuard() { path.pop_back(); }
};

class TorchWriter {
 public:
  explicit TorchWriter(std::string what) : what_(std::move(what)) {}

  void value(const IValue& v) {
    switch (v.tag()) {
      case IValue::Tag::None: p_.none(); return;
      case IValue::Tag::Bool: p_.boolean(v.to_bool()); return;
      case IValue::Tag::Int: p_.integer(v.to_int()); return;
      case IValue::Tag::Double: p_.floating(v.to_double()); return;
      case IValue::Tag::String: p_.string(v.to_string(), &v.to_string()); return;
      case IValue::Tag::Tensor: tensor(v.to_tensor()); return;
      case IValue::Tag::List: list(v.to_list()); return;
      case IValue::Tag::Tuple: tuple(v.to_tuple(), &v.to_tuple()); return;
      case IValue::Tag::Dict: dict(v.to_dict(), false); return;
    }
  }

  void state_dict(const StateDict& sd) {
    p_.global("collections", "OrderedDict");
    p_.empty_tuple();
    p_.reduce();
    p_.memo_put(&sd);
    batched(sd.size(), [&](size_t i) {
      const auto& [key, t] = sd.item(i);
      PathGuard g(path_, "['" + key + "']");
      p_.string(key, &key);
      tensor(t);
    }, Batching::ReducedDict);
  }

  // The whole archive, handed to sink.
  void finish(const std::string& archive_name, const ZipWriter::Sink& sink) {
    p_.stop();
    ZipWriter zip(archive_name, sink, what_);
    zip.write_record("data.pkl", p_.bytes());
    std::vector<const StorageRecord*> order;
    for (const auto& s : storages_) order.push_back(&s);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->key < b->key; });
    for (const StorageRecord* s : order) {
      const Storage& data = s->cpu;
      zip.write_record("data/" + s->key, s->nbytes, [&](const auto& write) {
        write(data->data(), static_cast<size_t>(s->nbytes));
      });
    }
    zip.write_record("version", "3\n");
    zip.finish();
  }

 private:
  struct StorageRecord {
    std::string key;
    DType dtype;
    uint64_t nbytes;
    Storage cpu;  // the bytes to write (the storage itself on the CPU)
  };

  [[noreturn]] void fail(const std::string& message) const {
    std::string where;
    for (const auto& piece : path_) where += piece;
    EMBER_FAIL(what_, ": ", where.empty() ? "the value" : "entry " + where, ": ", message);
  }

  // How CPython's C pickler (_pickle.c) batches the items of a container:
  //  - a list or a dict of exactly that type (batch_list_exact /
  //    batch_dict_exact): one item as APPEND/SETITEM; more in batches of
  //    1000, each MARK ... APPENDS/SETITEMS (a last batch of one item too);
  //    a dict whose size is a multiple of 1000 ends with an empty
  //    MARK SETITEMS (its loop runs again after a full batch);
  //  - the items of a __reduce__ (an OrderedDict; batch_dict): batches of
  //    1000, a last single item as SETITEM, never an empty batch.
  enum class Batching { ExactList, ExactDict, ReducedDict };
  template <class F>
  void batched(size_t n, const F& item, Batching kind) {
    const bool dict = kind != Batching::ExactList;
    if (n == 0) return;
    if (n == 1 || (kind == Batching::ReducedDict && n % 1000 == 1)) {
      // The one item, or (ReducedDict) the last one after full batches.
      for (size_t start = 0; start + 1 < n; start += 1000) {
        p_.mark();
        for (size_t i = start; i < start + 1000; ++i) item(i);
        p_.setitems();
      }
      item(n - 1);
      dict ? p_.setitem() : p_.append();
      return;
    }
    size_t start = 0;
    while (true) {
      const size_t end = std::min(n, start + 1000);
      p_.mark();
      for (size_t i = start; i < end; ++i) item(i);
      dict ? p_.setitems() : p_.appends();
      start = end;
      if (start < n) continue;
      // batch_dict_exact's do/while: a full last batch is followed by an empty one.
      if (kind == Batching::ExactDict && n % 1000 == 0) {
        p_.mark();
        p_.setitems();
      }
      return;
    }
  }

  void list(const std::vector<IValue>& items) {
    if (p_.memo_get(&items)) return;
    p_.empty_list();
    p_.memo_put(&items);
    batched(items.size(), [&](size_t i) {
      PathGuard g(path_, "[" + std::to_string(i) + "]");
      value(items[i]);
    }, Batching::ExactList);
  }

  // identity: null for tuples made here (sizes, strides), which Python makes
  // anew for each tensor as well.
  void tuple(const std::vector<IValue>& items, const void* identity) {
    if (items.empty()) {
      p_.empty_tuple();  // CPython does not memoize the empty tuple
      return;
    }
    if (identity && p_.memo_get(identity)) return;
    if (items.size() > 3) p_.mark();
    for (size_t i = 0; i < items.size(); ++i) {
      PathGuard g(path_, "[" + std::to_string(i) + "]");
      value(items[i]);
    }
    p_.tuple_end(items.size());
    p_.memo_put(identity);
  }

  void int_tuple(IntArrayRef values) {
    if (values.empty()) {
      p_.empty_tuple();
      return;
    }
    if (values.size() > 3) p_.mark();
    for (int64_t x : values) p_.integer(x);
    p_.tuple_end(values.size());
    p_.memo_put(nullptr);
  }

  void dict(const IDict& d, bool ordered) {
    if (p_.memo_get(&d)) return;
    if (ordered) {
      p_.global("collections", "OrderedDict");
      p_.empty_tuple();
      p_.reduce();
    } else {
      p_.empty_dict();
    }
    p_.memo_put(&d);
    batched(d.size(), [&](size_t i) {
      const auto& [k, v] = d.item(i);
      PathGuard g(path_, k.is_string() ? "['" + k.to_string() + "']" : "[" + std::to_string(k.to_int()) + "]");
      value(k);
      value(v);
    }, ordered ? Batching::ReducedDict : Batching::ExactDict);
  }

  void tensor(const Tensor& given) {
    if (!given.defined()) fail("an undefined tensor cannot be saved");
    if (p_.memo_get(given.impl())) return;  // the same tensor object again
    // A pending conjugate/negation is applied first: torch.save has no way
    // to record the bits of a view (this tensor then has a storage of its own).
    Tensor t = given.impl()->has_lazy_bits() ? given.resolve_conj().resolve_neg() : given;
    const StorageRecord& s = storage(t);
    p_.global("torch._utils", "_rebuild_tensor_v2");
    p_.mark();
    // The persistent id: ('storage', torch.<T>Storage, key, 'cpu', numel).
    p_.mark();
    p_.string("storage", &kStorageTag);
    p_.global("torch", pickle::torch_storage_type(s.dtype, "save_torch"));
    p_.string(s.key, &s.key);
    p_.string("cpu", &kLocation);
    p_.integer(static_cast<int64_t>(s.nbytes / element_size(s.dtype)));
    p_.tuple_end(5);
    p_.memo_put(nullptr);
    p_.binpersid();
    p_.integer(t.storage_offset());
    int_tuple(t.sizes());
    int_tuple(t.strides());
    p_.boolean(t.requires_grad());
    // backward_hooks: an empty OrderedDict.
    p_.global("collections", "OrderedDict");
    p_.empty_tuple();
    p_.reduce();
    p_.memo_put(nullptr);
    p_.tuple_end(6);
    p_.memo_put(nullptr);
    p_.reduce();
    p_.memo_put(given.impl());
    keep_.push_back(given);  // the memo's identity must stay alive
  }

  const StorageRecord& storage(const Tensor& t) {
    const StorageImpl* impl = t.storage().get();
    if (auto it = by_storage_.find(impl); it != by_storage_.end()) {
      const StorageRecord& s = storages_[it->second];
      if (s.dtype != t.dtype())
        fail(ember::detail::concat("a tensor of ", dtype_name(t.dtype()), " views storage '", s.key,
                                   "' already saved as ", dtype_name(s.dtype),
                                   ": torch.save cannot store one storage as two dtypes"));
      return s;
    }
    const uint64_t nbytes = t.storage()->nbytes();
    if (nbytes % element_size(t.dtype()) != 0)
      fail(ember::detail::concat("its storage of ", nbytes, " bytes is not a whole number of ",
                                 dtype_name(t.dtype()), " elements"));
    Storage cpu = t.storage();
    if (!t.device().is_cpu()) {
      // The storage's bytes, copied to the host once: every view keeps its place in it.
      Tensor bytes(make_intrusive<TensorImpl>(t.storage(), kUInt8, std::vector<int64_t>{static_cast<int64_t>(nbytes)},
                                              std::vector<int64_t>{1}, 0));
      cpu = bytes.cpu().storage();
    }
    storages_.push_back(StorageRecord{std::to_string(storages_.size()), t.dtype(), nbytes, std::move(cpu)});
    by_storage_.emplace(impl, storages_.size() - 1);
    keep_.push_back(t);
    return storages_.back();
  }

  static const std::string kStorageTag, kLocation;
  std::string what_;
  pickle::Pickler p_;
  std::vector<std::string> path_;
  std::deque<StorageRecord> storages_;  // a deque: records never move (their keys are memo identities)
  std::unordered_map<const StorageImpl*, size_t> by_storage_;
  std::vector<Tensor> keep_;
};

const std::string TorchWriter::kStorageTag = "storage";
const std::string TorchWriter::kLocation = "cpu";

void write_file(const std::string& path, const std::string& what,
                const std::function<void(TorchWriter&)>& fill) {
  TorchWriter w(what);
  fill(w);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.good(), what, ": cannot open the file for writing");
  w.finish(archive_name_of(path), [&](const void* data, size_t n) {
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    EMBER_CHECK(f.good(), what, ": error writing the file");
  });
  f.flush();
  EMBER_CHECK(f.good(), what, ": error writing the file");
}

std::string write_bytes(const std::string& archive_name, const std::function<void(TorchWriter&)>& fill) {
  TorchWriter w("save_torch_bytes");
  fill(w);
  std::string out;
  w.finish(archive_name, [&](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); });
  return out;
}

}  // namespace

std::string save_torch_bytes(const IValue& value, const std::string& archive_name) {
  return write_bytes(archive_name, [&](TorchWriter& w) { w.value(value); });
}

std::string save_torch_bytes(const StateDict& state_dict, const std::string& archive_name) {
  return write_bytes(archive_name, [&](TorchWriter& w) { w.state_dict(state_dict); });
}

IValue state_dict_value(const StateDict& state_dict) {
  IDict d;
  d.reserve(state_dict.size());
  for (const auto& [k, t] : state_dict) d.insert(k, t);
  return IValue::dict(std::move(d));
}

bool is_torch_checkpoint_path(const std::string& path) {
  auto ends_with = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
    return true;
  };
  return ends_with(".pt") || ends_with(".pth");
}

}  // namespace serialize

void save_torch(const std::string& path, const IValue& value) {
  serialize::write_file(path, "save_torch: " + path, [&](serialize::TorchWriter& w) { w.value(value); });
}

void save_torch(const std::string& path, const StateDict& state_dict) {
  serialize::write_file(path, "save_torch: " + path, [&](serialize::TorchWriter& w) { w.state_dict(state_dict); });
}

}  // namespace ember
