// Note [Writing libtorch module archives]
// libtorch's torch::save(module, path) goes through serialize::OutputArchive:
// a TorchScript module of class __torch__.Module whose submodules are modules
// of classes __torch__.___torch_mangle_<n>.Module (numbered in preorder), each
// class declaring its parameters and buffers and annotating every attribute,
// with no methods; torch::load(module, path) reads it back with
// torch::jit::load. save_torchscript_module writes the same archive:
//  - code/__torch__.py and code/__torch__/___torch_mangle_<n>.py:
//      class Module(Module):
//        __parameters__ = ["weight", "bias", ]
//        __buffers__ = []
//        weight : Tensor
//        conv1 : __torch__.___torch_mangle_0.Module
//    (a name that is not an identifier, "0" in a Sequential, is annotated as
//    __annotations__["0"] = ...; an absent tensor as Optional[Tensor]);
//  - data.pkl: the root object, GLOBAL '__torch__ Module', NEWOBJ, BUILD with
//    the dict of its attributes (parameters, buffers, then submodules), in the
//    forms libtorch's own unpickler reads (it lacks APPEND and reads LONG1
//    only with 8 bytes): MARK ... SETITEMS for every non-empty dict, MARK ...
//    TUPLE for every tuple; tensors and storages as in torch.save files;
//  - constants.pkl (an empty tuple), version "3", data/<key>.
// Records are stored, not compressed; the .debug_pkl files torch writes beside
// the code are optional and not written.
#include <cctype>
#include <fstream>
#include <unordered_map>

#include "ember/core/error.h"
#include "ember/serialize/torch_save.h"
#include "serialize/pickler.h"
#include "serialize/zip_writer.h"

namespace ember::serialize {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

class ModuleArchiveWriter {
 public:
  explicit ModuleArchiveWriter(std::string what) : what_(std::move(what)) { p_.set_long1_eight_bytes(true); }

  void write(const ScriptModuleTree& root) {
    module(root, "", 0);
    p_.stop();
  }

  void finish(const std::string& archive_name, const ZipWriter::Sink& sink) {
    ZipWriter zip(archive_name, sink, what_);
    for (const Storage_& s : storages_)
      zip.write_record("data/" + s.key, s.nbytes, [&](const auto& w) { w(s.cpu->data(), static_cast<size_t>(s.nbytes)); });
    zip.write_record("data.pkl", p_.bytes());
    for (const auto& [file, code] : code_) zip.write_record(file, code);
    zip.write_record("constants.pkl", std::string("\x80\x02).", 4));
    zip.write_record("version", "3\n");
    zip.finish();
  }

 private:
  struct Storage_ {
    std::string key;
    DType dtype;
    uint64_t nbytes;
    Storage cpu;
  };

  void module(const ScriptModuleTree& m, const std::string& path, int depth) {
    EMBER_CHECK(depth <= 1000, what_, ": modules nested more than 1000 levels deep");
    EMBER_CHECK(m.child_names.size() == m.children.size(), what_, ": module '", path, "' has ", m.child_names.size(),
                " child names but ", m.children.size(), " children");
    // This module's class (Note [Writing libtorch module archives]).
    const std::string module_name = depth == 0 ? "__torch__" : "__torch__.___torch_mangle_" + std::to_string(mangle_++);
    const std::string file = depth == 0 ? "code/__torch__.py" : "code/__torch__/___torch_mangle_" + std::to_string(mangle_ - 1) + ".py";
    std::string code = "class Module(Module):\n";
    auto name_list = [](const std::vector<std::pair<std::string, Tensor>>& v) {
      std::string out = "[";
      for (const auto& [n, t] : v) out += "\"" + n + "\", ";
      return out + "]";
    };
    code += "  __parameters__ = " + name_list(m.parameters) + "\n";
    code += "  __buffers__ = " + name_list(m.buffers) + "\n";
    bool annotations = false;
    auto annotate = [&](const std::string& n, const std::string& type) {
      EMBER_CHECK(!n.empty() && n.find_first_of("\"\\.\n") == std::string::npos, what_, ": attribute name '", n,
                  "' of module '", path, "' cannot be written");
      if (is_identifier(n)) {
        code += "  " + n + " : " + type + "\n";
        return;
      }
      if (!annotations) code += "  __annotations__ = []\n";
      annotations = true;
      code += "  __annotations__[\"" + n + "\"] = " + type + "\n";
    };
    for (const auto* list : {&m.parameters, &m.buffers})
      for (const auto& [n, t] : *list) annotate(n, t.defined() ? "Tensor" : "Optional[Tensor]");
    for (const auto& [n, v] : m.attributes) annotate(n, script_type(v, path + n));
    // The object: NEWOBJ of the class, then BUILD with its attributes.
    p_.global(module_name, "Module");
    p_.empty_tuple();
    p_.newobj();
    p_.empty_dict();
    const size_t n_attrs = m.parameters.size() + m.buffers.size() + m.attributes.size() + m.children.size();
    if (n_attrs > 0) p_.mark();
    for (const auto* list : {&m.parameters, &m.buffers}) {
      for (const auto& [n, t] : *list) {
        p_.string(n, nullptr);
        if (t.defined()) tensor(t, path + n);
        else p_.none();
      }
    }
    for (const auto& [n, v] : m.attributes) {
      p_.string(n, nullptr);
      value(v, path + n);
    }
    std::vector<std::string> child_types;
    for (size_t i = 0; i < m.children.size(); ++i) {
      p_.string(m.child_names[i], nullptr);
      const uint32_t before = mangle_;
      module(m.children[i], path + m.child_names[i] + ".", depth + 1);
      child_types.push_back("__torch__.___torch_mangle_" + std::to_string(before) + ".Module");
    }
    if (n_attrs > 0) p_.setitems();
    p_.build();
    for (size_t i = 0; i < m.children.size(); ++i) annotate(m.child_names[i], child_types[i]);
    code_.emplace_back(file, std::move(code));
  }

  // The TorchScript type of a plain attribute, for its class's annotation.
  std::string script_type(const IValue& v, const std::string& name) const {
    if (v.is_none()) return "NoneType";  // libtorch's unset optional option (LBFGS's line_search_fn)
    if (v.is_string()) return "str";
    if (v.is_bool()) return "bool";
    if (v.is_int()) return "int";
    if (v.is_double()) return "float";
    if (v.is_tensor()) return "Tensor";
    if (v.is_tuple()) {
      std::string out = "Tuple[";
      const auto& items = v.to_tuple();
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + script_type(items[i], name);
      return out + "]";
    }
    if (v.is_list()) {
      // A list's element type is its first element's; an empty list is a
      // List[Tensor], the only lists libtorch's archives hold (LBFGS's deques).
      const auto& items = v.to_list();
      const std::string elem = items.empty() ? "Tensor" : script_type(items[0], name);
      for (const IValue& item : items)
        EMBER_CHECK(script_type(item, name) == elem, what_, ": list attribute '", name, "' mixes ", elem, " and ",
                    script_type(item, name));
      return "List[" + elem + "]";
    }
    EMBER_FAIL(what_, ": attribute '", name, "' is a ", v.type_name(),
               ": a module archive's attributes are None, str, int, float, bool, Tensor or tuples or lists of them");
  }

  // A plain attribute's value, in the forms libtorch's unpickler reads.
  void value(const IValue& v, const std::string& name) {
    if (v.is_none()) p_.none();
    else if (v.is_string()) p_.string(v.to_string(), nullptr);
    else if (v.is_bool()) p_.boolean(v.to_bool());
    else if (v.is_int()) p_.integer(v.to_int());
    else if (v.is_double()) p_.floating(v.to_double());
    else if (v.is_tensor()) tensor(v.to_tensor(), name);
    else if (v.is_tuple()) {
      p_.mark();
      for (const IValue& item : v.to_tuple()) value(item, name);
      p_.tuple_end(0);
    } else if (v.is_list()) {
      // A List[Tensor] is libtorch's specialized list, rebuilt by
      // torch.jit._pickle.build_tensorlist((items,)); its deserializers call
      // toTensorList(), which a plain (generic) list fails. EMPTY_LIST, then
      // MARK ... APPENDS, as libtorch writes it.
      const bool tensors = script_type(v, name) == "List[Tensor]";
      if (tensors) {
        p_.global("torch.jit._pickle", "build_tensorlist");
        p_.mark();
      }
      p_.empty_list();
      if (!v.to_list().empty()) {
        p_.mark();
        for (const IValue& item : v.to_list()) value(item, name);
        p_.appends();
      }
      if (tensors) {
        p_.tuple_end(0);
        p_.reduce();
      }
    } else {
      script_type(v, name);  // the error naming the type
    }
  }

  void tensor(const Tensor& given, const std::string& name) {
    Tensor t = given.impl()->has_lazy_bits() ? given.resolve_conj().resolve_neg() : given;
    const StorageImpl* impl = t.storage().get();
    auto it = by_storage_.find(impl);
    if (it == by_storage_.end()) {
      const uint64_t nbytes = t.storage()->nbytes();
      EMBER_CHECK(nbytes % element_size(t.dtype()) == 0, what_, ": '", name, "': its storage of ", nbytes,
                  " bytes is not a whole number of ", dtype_name(t.dtype()), " elements");
      Storage cpu = t.storage();
      if (!t.device().is_cpu()) {
        Tensor bytes(make_intrusive<TensorImpl>(t.storage(), kUInt8, std::vector<int64_t>{static_cast<int64_t>(nbytes)},
                                                std::vector<int64_t>{1}, 0));
        cpu = bytes.cpu().storage();
      }
      storages_.push_back(Storage_{std::to_string(storages_.size()), t.dtype(), nbytes, std::move(cpu)});
      it = by_storage_.emplace(impl, storages_.size() - 1).first;
      keep_.push_back(t);
    }
    const Storage_& s = storages_[it->second];
    EMBER_CHECK(s.dtype == t.dtype(), what_, ": '", name, "' (", dtype_name(t.dtype()), ") views storage '", s.key,
                "' already saved as ", dtype_name(s.dtype));
    p_.global("torch._utils", "_rebuild_tensor_v2");
    p_.mark();
    p_.mark();
    p_.string("storage", nullptr);
    p_.global("torch", pickle::torch_storage_type(s.dtype, "save_torchscript_module"));
    p_.string(s.key, nullptr);
    p_.string("cpu", nullptr);
    p_.integer(static_cast<int64_t>(s.nbytes / element_size(s.dtype)));
    p_.tuple_end(0);  // TUPLE after the MARK
    p_.binpersid();
    p_.integer(t.storage_offset());
    p_.mark();
    for (int64_t x : t.sizes()) p_.integer(x);
    p_.tuple_end(0);
    p_.mark();
    for (int64_t x : t.strides()) p_.integer(x);
    p_.tuple_end(0);
    p_.boolean(t.requires_grad());
    p_.global("collections", "OrderedDict");
    p_.empty_tuple();
    p_.reduce();
    p_.tuple_end(0);
    p_.reduce();
  }

  std::string what_;
  pickle::Pickler p_;
  uint32_t mangle_ = 0;
  std::vector<std::pair<std::string, std::string>> code_;
  std::vector<Storage_> storages_;
  std::unordered_map<const StorageImpl*, size_t> by_storage_;
  std::vector<Tensor> keep_;
};

}  // namespace

std::string save_torchscript_module_bytes(const ScriptModuleTree& module, const std::string& archive_name) {
  ModuleArchiveWriter w("save_torchscript_module");
  w.write(module);
  std::string out;
  w.finish(archive_name, [&](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); });
  return out;
}

void save_torchscript_module(const std::string& path, const ScriptModuleTree& module) {
  const std::string what = "save_torchscript_module: " + path;
  ModuleArchiveWriter w(what);
  w.write(module);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.good(), what, ": cannot open the file for writing");
  w.finish(archive_name_of(path), [&](const void* data, size_t n) {
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    EMBER_CHECK(f.good(), what, ": error writing the file");
  });
  f.flush();
  EMBER_CHECK(f.good(), what, ": error writing the file");
}

}  // namespace ember::serialize
